// deploy/target-queues.ts refuses, at package time, a list of target queues whose URLs would not fit in the
// functions' environment: CloudFormation fills the URLs into QUEUES at deploy time, and Lambda refuses an environment
// over 4 KB then, in the user's account (test/support/template-settings.ts estimates the same for packaged templates).
import { createRequire } from 'node:module'
import { describe, expect, it } from 'vitest'

const TargetQueues = createRequire(__filename)('../../deploy/target-queues.ts')

/** ${targetQueues:queuesEnv} for this list, as osls would resolve it for service serverless-delay-queue, stage prod. */
async function queuesEnv(targetQueues: string[]) {
  const plugin = new TargetQueues()
  const config: Record<string, unknown> = {
    service: 'serverless-delay-queue',
    custom: { delayQueue: { targetQueues } },
  }
  return plugin.configurationVariablesSources.targetQueues.resolve({
    address: 'queuesEnv',
    resolveConfigurationProperty: async (path: string[]) => path.reduce<any>((node, key) => node?.[key], config),
    resolveVariable: async () => 'prod',
  })
}

const names = (n: number) => Array.from({ length: n }, (_, i) => `queue-${String(i).padStart(2, '0')}`)

describe('target queues and the functions’ 4 KB environment', () => {
  it('packages twenty target queues', async () => {
    const { value } = await queuesEnv(names(20))
    expect(value['Fn::Join'][1]).toHaveLength(40)
  })

  it('refuses thirty, saying how big QUEUES would get and what to do', async () => {
    await expect(queuesEnv(names(30))).rejects.toThrow(
      /custom.delayQueue: the 30 target queues make QUEUES up to \d+ bytes .*4 KB.*fewer or shorter names/,
    )
  })
})
