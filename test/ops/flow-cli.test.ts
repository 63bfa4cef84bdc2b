// `npm run sdq -- flow ...` as an operator types it: pause and resume a queue, rate a flow key, list the settings;
// a usage mistake exits 2 with the usage, a rule broken exits 1 naming it, and neither changes anything.
import { afterAll, describe, expect, it } from 'vitest'
import { readFlowSettings } from '../../src/flow/flow-settings'
import { cliStage, jsonLines, runSdq } from '../support/sdq-cli'

const { t, env } = cliStage('flow-cli', ['orders', 'emails'])
afterAll(() => t.close())

const sdq = async (...args: string[]) => jsonLines(await runSdq(env, ...args))

describe('sdq flow', () => {
  it('pauses a queue, rates a key, lists both, resumes and removes the rate', async () => {
    // act
    const paused = await sdq('flow', 'pause', '--queue', 'orders')
    const rated = await sdq('flow', 'rate', '--key', 'mail', '50', '--burst', '5')
    const listed = await sdq('flow', 'list')
    const resumed = await sdq('flow', 'resume', '--queue', 'orders')
    const off = await sdq('flow', 'rate', '--key', 'mail', 'off')
    // assess
    expect(paused).toEqual([{ queue: 'orders', paused: true }])
    expect(rated).toEqual([{ flowKey: 'mail', paused: false, rate: 50, burst: 5 }])
    expect(listed).toEqual([
      { flowKey: 'mail', paused: false, rate: 50, burst: 5 },
      { queue: 'orders', paused: true },
    ])
    expect(resumed).toEqual([{ queue: 'orders', paused: false, resumed: 0 }])
    expect(off).toEqual([{ flowKey: 'mail', paused: false }])
    expect((await readFlowSettings(t.redis, t.keys)).rates.size).toBe(0)
  }, 60_000)

  it('refuses a missing target (usage, exit 2) and an unknown queue (exit 1), changing nothing', async () => {
    // prepare
    const before = await readFlowSettings(t.redis, t.keys)
    // act
    const noTarget = await runSdq(env, 'flow', 'pause')
    const unknown = await runSdq(env, 'flow', 'pause', '--queue', 'nope')
    // assess
    expect(noTarget.code).toBe(2)
    expect(noTarget.stderr).toContain('name one target: --queue Q, --key K or --tag T')
    expect(unknown.code).toBe(1)
    expect(unknown.stderr).toContain('queue: must be one of the configured queues')
    expect(await readFlowSettings(t.redis, t.keys)).toEqual(before)
  }, 60_000)
})
