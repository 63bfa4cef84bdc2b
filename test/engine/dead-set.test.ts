// Jobs SQS refused on every attempt are listed with their error and can be put back on schedule.
import { sleep } from '../../devkit/sleep'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { DeadSet } from '../../src/ops/dead-set'
import { JobNotFoundError } from '../../src/errors'
import { Leases } from '../../src/scan/claims/leases'
import type { ShardKeys } from '../../src/store/keys'
import { job, testStore } from '../support/engine'

// Each case its own keyspace, and its own dead jobs: what a failing case left (dead, or claimed and never settled)
// must not show in the next case's lists, counts or claims.
let t: ReturnType<typeof testStore>
let leases: Leases
let dead: DeadSet
let shard: ShardKeys
beforeEach(() => {
  t = testStore({ shards: 1, buckets: 4 })
  leases = new Leases(t.redis, { leaseMs: 10_000, maxAttempts: 1, backoffBaseMs: 1, backoffMaxMs: 1 })
  dead = new DeadSet(t.redis, t.keys)
  shard = t.keys.shards[0]!
})
afterEach(() => t.close())

async function killAll() {
  const r = await leases.claim(shard, await leases.seedHints(shard, 50), 50)
  await leases.release(
    shard,
    r.jobs.map((j) => ({ ...j, error: `refused ${j.id}` })),
  )
  return r.jobs.length
}

describe('dead set', () => {
  it('lists dead jobs with their payload and last error, newest first, filtered by queue', async () => {
    // prepare
    await t.store.enqueue(job({ id: 'd-a', queue: 'orders', payloadJson: '{"a":1}' }))
    await killAll()
    await sleep(5)
    await t.store.enqueue(job({ id: 'd-b', queue: 'mail', groupId: undefined }))
    await killAll()
    // act
    const all = await dead.list()
    const orders = await dead.list({ queue: 'orders' })
    // assess
    expect(all.map((j) => j.id)).toEqual(['d-b', 'd-a'])
    expect(orders).toEqual([
      expect.objectContaining({
        id: 'd-a',
        queue: 'orders',
        payload: { a: 1 },
        lastError: expect.objectContaining({ message: 'refused d-a', attempts: 1 }),
      }),
    ])
    expect((await t.store.stats()).queues.orders).toMatchObject({ dead: 1, pending: 0 })
  })

  it('revives a dead job unchanged, with fresh attempts, and it is claimed again when due', async () => {
    // prepare: a job SQS refused on its only attempt
    await t.store.enqueue(job({ id: 'd-a', queue: 'orders', payloadJson: '{"a":1}' }))
    expect(await killAll()).toBe(1)
    // act
    const due = await dead.revive('d-a', 0)
    // assess
    expect(due).toBeGreaterThan(0)
    expect(await t.store.get('d-a')).toMatchObject({ status: 'scheduled', payload: { a: 1 } })
    expect((await t.store.stats()).queues.orders).toMatchObject({ dead: 0, pending: 1 })
    const r = await leases.claim(shard, await leases.seedHints(shard, 10), 10)
    expect(r.jobs.map((j) => [j.id, j.attempt])).toEqual([['d-a', 1]])
    await leases.ack(shard, r.jobs)
  })

  it('refuses to revive a job that is not dead', async () => {
    await t.store.enqueue(job({ id: 'alive', due: { delayMs: 60_000 } }))
    await expect(dead.revive('alive')).rejects.toBeInstanceOf(JobNotFoundError)
    await expect(dead.revive('never-existed')).rejects.toBeInstanceOf(JobNotFoundError)
    expect((await t.store.get('alive'))!.status).toBe('scheduled')
  })
})
