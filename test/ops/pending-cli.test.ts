// `npm run sdq -- pending` and `sdq job` as an operator types them: pending jobs a page at a time in due order, and
// one job looked up by id.
import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import { afterAll, describe, expect, inject, it } from 'vitest'
import { job, testStore, uniquePrefix } from '../support/engine'

const run = promisify(execFile)
const prefix = uniquePrefix('pending-cli')
// The CLI's default layout (SHARDS 1, DUE_BUCKETS 16384), under a key prefix of this file's own.
const t = testStore({ prefix, shards: 1, buckets: 16_384 })
afterAll(() => t.close())

async function sdq(...args: string[]): Promise<Record<string, any>[]> {
  const env = {
    ...process.env,
    REDIS_URL: inject('redisUrl'),
    KEY_PREFIX: prefix,
    QUEUES: 'orders=http://127.0.0.1:9/q/orders,emails=http://127.0.0.1:9/q/emails,idle=http://127.0.0.1:9/q/idle',
  }
  const { stdout } = await run(process.execPath, ['scripts/run-ts.mjs', 'src/ops/sdq.ts', ...args], { env })
  return stdout
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l))
}

describe('sdq pending', () => {
  it('prints a page of pending jobs in due order and the cursor that continues it, then one job by id', async () => {
    // prepare: 3 orders jobs due in reverse order of creation, 1 emails job
    for (let i = 0; i < 3; i++) {
      await t.store.enqueue(job({ id: `cli-p-${i}`, queue: 'orders', schedule: { delayMs: 600_000 - i * 1_000 } }))
    }
    await t.store.enqueue(job({ id: 'cli-p-mail', queue: 'emails', schedule: { delayMs: 1_000 } }))
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
    // act
    const [stats] = await sdq('stats')
    // assess
    expect(stats!.queues.idle).toEqual({ pending: 0, dead: 0, dispatched: 0 })
    expect(stats!.queues.orders.pending).toBeGreaterThanOrEqual(0)
  }, 30_000)
})
