// `npm run sdq -- pending` and `sdq job` as an operator types them: pending jobs a page at a time in due order, and
// one job looked up by id.
import { afterAll, describe, expect, it } from 'vitest'
import { job } from '../support/engine'
import { cliStage, jsonLines, runSdq } from '../support/sdq-cli'

const { t, env } = cliStage('pending-cli', ['orders', 'emails', 'idle'])
afterAll(() => t.close())

const sdq = async (...args: string[]) => jsonLines(await runSdq(env, ...args))

describe('sdq pending', () => {
  it('prints a page of pending jobs in due order and the cursor that continues it, then one job by id', async () => {
    // prepare: 3 orders jobs due in reverse order of creation, 1 emails job
    for (let i = 0; i < 3; i++) {
      await t.store.enqueue(job({ id: `cli-p-${i}`, queue: 'orders', due: { delayMs: 600_000 - i * 1_000 } }))
    }
    await t.store.enqueue(job({ id: 'cli-p-mail', queue: 'emails', due: { delayMs: 1_000 } }))
    // act
    const first = await sdq('pending', '--queue', 'orders', '--limit', '2')
    const rest = await sdq('pending', '--queue', 'orders', '--cursor', first.at(-1)!.cursor)
    const one = await sdq('job', 'cli-p-1')
    // assess
    expect(first.slice(0, -1).map((j) => j.id)).toEqual(['cli-p-2', 'cli-p-1'])
    expect(rest.map((j) => j.id ?? j.cursor)).toEqual(['cli-p-0', null])
    expect(one).toEqual([expect.objectContaining({ id: 'cli-p-1', status: 'scheduled', queue: 'orders' })])
  }, 30_000)
})

describe('sdq stats', () => {
  it('shows every configured queue, an idle one with zeros, as GET /stats does', async () => {
    // prepare: one more pending job, so the counts read cannot all be zero
    await t.store.enqueue(job({ id: 'cli-s-1', queue: 'emails', due: { delayMs: 600_000 } }))
    // act
    const [stats] = await sdq('stats')
    const engine = await t.store.stats()
    // assess: the CLI prints the engine's counts, and a configured queue the engine has never seen with zeros
    expect(stats!.queues.emails.pending).toBeGreaterThanOrEqual(1)
    expect(stats!.queues).toEqual({ ...engine.queues, idle: { pending: 0, dead: 0, dispatched: 0 } })
  }, 30_000)
})
