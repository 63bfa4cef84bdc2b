// deploy/scan-fan-out.ts grants the scan role its worker starts, and deploy/endpoints.ts routes to Lambda, exactly where
// functions/scan.ts can fan out: SCAN_MAX_WORKERS above 0 and no FIFO target queue. The plugins are resolved here as
// osls would resolve them, for settings a packaging run in a test cannot set (the environment's SCAN_MAX_WORKERS).
import { createRequire } from 'node:module'
import { describe, expect, it } from 'vitest'

const load = createRequire(__filename)
const ScanFanOut = load('../../deploy/scan-fan-out.ts')
const Endpoints = load('../../deploy/endpoints.ts')

interface Settings {
  targetQueues?: string[]
  scanMaxWorkers?: string
  scanMode?: string
}

/** The configuration and params osls would hand the plugins for these settings (stage prod, createEndpoints=true). */
function resolvers({ targetQueues = ['orders', 'emails'], scanMaxWorkers, scanMode = 'continuous' }: Settings) {
  const config: Record<string, any> = {
    provider: { environment: scanMaxWorkers === undefined ? {} : { SCAN_MAX_WORKERS: scanMaxWorkers } },
    custom: { delayQueue: { targetQueues } },
  }
  const params: Record<string, string> = {
    createEndpoints: 'true',
    egress: 'endpoints',
    scanMode,
    ssmPrefix: '/serverless-delay-queue/prod',
    endpointSubnetIdsSsm: '/serverless-delay-queue/prod/subnet-ids',
  }
  const resolveConfigurationProperty = async (path: string[]) => path.reduce<any>((node, key) => node?.[key], config)
  const fanOut = (address: string) =>
    new ScanFanOut().configurationVariablesSources.scanFanOut.resolve({ address, resolveConfigurationProperty })
  const resolveVariable = async (variable: string) => {
    if (variable.startsWith('param:')) return params[variable.slice(6)]
    if (variable === 'scanFanOut:enabled') return (await fanOut('enabled')).value
    throw new Error(`unexpected variable ${variable}`)
  }
  const endpoints = async () =>
    Object.keys(
      (await new Endpoints().configurationVariablesSources.endpoints.resolve({ resolveVariable })).value.Resources,
    ).filter((id) => id.endsWith('VpcEndpoint'))
  const policies = async () => Object.keys((await fanOut('resources')).value.Resources)
  return { endpoints, policies }
}

describe('worker starts and the Lambda endpoint follow whether the scan can fan out', () => {
  it('grants worker starts and creates the Lambda endpoint in continuous mode with the default SCAN_MAX_WORKERS', async () => {
    const stack = resolvers({})
    expect(await stack.policies()).toEqual(['ScanStartsWorkersPolicy'])
    expect((await stack.endpoints()).sort()).toEqual(['LambdaVpcEndpoint', 'SqsVpcEndpoint'])
  })

  it('grants nothing and routes only to SQS with SCAN_MAX_WORKERS=0 in continuous mode', async () => {
    const stack = resolvers({ scanMaxWorkers: '0' })
    expect(await stack.policies()).toEqual([])
    expect(await stack.endpoints()).toEqual(['SqsVpcEndpoint'])
  })

  it('grants no worker starts with a FIFO target queue (no fan-out), yet keeps the Lambda endpoint on demand', async () => {
    const fifo = ['orders', 'events.fifo']
    expect(await resolvers({ targetQueues: fifo }).policies()).toEqual([])
    expect(await resolvers({ targetQueues: fifo }).endpoints()).toEqual(['SqsVpcEndpoint'])
    const onDemand = resolvers({ targetQueues: fifo, scanMode: 'on-demand' })
    expect((await onDemand.endpoints()).sort()).toEqual(['LambdaVpcEndpoint', 'SqsVpcEndpoint'])
  })

  it('refuses a SCAN_MAX_WORKERS the functions would refuse, naming it', async () => {
    await expect(resolvers({ scanMaxWorkers: 'four' }).policies()).rejects.toThrow(
      /SCAN_MAX_WORKERS must be a whole number from 0 to 100, got "four"/,
    )
  })
})
