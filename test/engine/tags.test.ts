// Tags (src/store/tag-index.ts): a job's tags are kept in its record and in its shard's tag index, and leave the index
// with the job (sent, cancelled, replaced without them); listing and cancelling by tag work over every shard.
import { afterAll, describe, expect, it } from 'vitest'
import { Leases } from '../../src/scan/claims/leases'
import { cancelByTag } from '../../src/store/tag-cancel'
import { tagCount } from '../../src/store/tag-index'
import { readTagPage } from '../../src/store/tag-page'
import { job, testStore } from '../support/engine'
import { testScanner } from '../support/scanner'
import { createQueue, sqsClient } from '../support/sqs'

const t = testStore({ buckets: 16 })
const sqs = sqsClient()
afterAll(async () => {
  sqs.destroy()
  await t.close()
})
const noReplicas = { replicas: 0, timeoutMs: 1_000 }
/** Jobs the index holds under these tags, over every shard. */
const indexed = async (...tags: string[]) => {
  let n = 0
  for (const shard of t.keys.shards) for (const tag of tags) n += await tagCount(t.redis, shard, tag)
  return n
}
const cancel = (tag: string, stepJobs?: number) => cancelByTag(t.redis, t.keys, noReplicas, tag, { stepJobs })

describe('tags on jobs', () => {
  it('lists the jobs with a tag in id order over every shard, page by page, with status and tags', async () => {
    // prepare: 7 jobs of one order, 2 of another, one without tags
    for (let i = 0; i < 7; i++) {
      await t.store.enqueue(job({ id: `l-${i}`, tags: ['order:1', 'user=9'], due: { delayMs: 60_000 } }))
    }
    await t.store.enqueue(job({ id: 'l-x', tags: ['order:2'], due: { delayMs: 60_000 } }))
    await t.store.enqueue(job({ id: 'l-y', tags: ['order:2'], due: { delayMs: 60_000 } }))
    await t.store.enqueue(job({ id: 'l-plain', due: { delayMs: 60_000 } }))
    // act
    const first = await readTagPage(t.store, 'order:1', { limit: 4, cursor: null })
    const second = await readTagPage(t.store, 'order:1', { limit: 4, cursor: first.cursor })
    // assess
    expect(first.jobs.map((j) => j.id)).toEqual(['l-0', 'l-1', 'l-2', 'l-3'])
    expect(second.jobs.map((j) => j.id)).toEqual(['l-4', 'l-5', 'l-6'])
    expect(second.cursor).toBeNull()
    expect(first.jobs[0]).toMatchObject({ queue: 'orders', status: 'scheduled', tags: ['order:1', 'user=9'] })
    expect((await t.store.get('l-0'))?.tags).toEqual(['order:1', 'user=9'])
    // the pending list counts the payload alone (as the tag page does), not the tags after it in the record
    const pending = await t.store.listPending({ limit: 20 })
    expect(pending.jobs.find((j) => j.id === 'l-0')?.payloadBytes).toBe(first.jobs[0]!.payloadBytes)
    expect((await t.store.get('l-plain'))?.tags).toBeUndefined()
    // cleanup
    await cancel('order:1')
    await cancel('order:2')
    await t.store.cancel('l-plain')
    expect(await indexed('order:1', 'order:2', 'user=9')).toBe(0)
  })

  it('keeps a job without tags out of the index: no entry, no key', async () => {
    // act
    await t.store.enqueue(job({ id: 'plain-1', due: { delayMs: 60_000 } }))
    await t.store.upsert(job({ id: 'plain-1', tags: [], due: { delayMs: 30_000 } }))
    // assess
    for (const shard of t.keys.shards) expect(await t.redis.exists(shard.tags)).toBe(0)
    await t.store.cancel('plain-1')
  })

  it('moves a replaced job to its new tags, and forgets a cancelled one', async () => {
    // prepare
    await t.store.enqueue(job({ id: 'r-1', tags: ['a', 'b'], due: { delayMs: 60_000 } }))
    // act: replaced with other tags
    await t.store.upsert(job({ id: 'r-1', tags: ['b', 'c'], due: { delayMs: 60_000 } }))
    const tagged = async (tag: string) => (await readTagPage(t.store, tag, { limit: 10, cursor: null })).jobs.length
    // assess
    expect([await tagged('a'), await tagged('b'), await tagged('c')]).toEqual([0, 1, 1])
    // act: cancelled by id
    await t.store.cancel('r-1')
    // assess
    expect(await indexed('a', 'b', 'c')).toBe(0)
  })

  it('forgets a job SQS accepted: its ack removes its entries', async () => {
    // prepare
    const { url } = await createQueue(sqs, 'tags-ack')
    for (let i = 0; i < 5; i++) await t.store.enqueue(job({ id: `a-${i}`, queue: 'tq', tags: ['sent', `n${i}`] }))
    const s = testScanner(t, { queues: { tq: url } })
    // act
    await s.runUntil(async () => (await t.store.stats()).queues.tq?.pending === 0)
    await s.close()
    // assess
    expect(await indexed('sent', 'n0', 'n1', 'n2', 'n3', 'n4')).toBe(0)
  })

  it('cancels by tag over several steps and shards, and counts a job being sent as in flight, not cancelled', async () => {
    // prepare: 30 jobs with the tag, one of them claimed by a scanner (leased) right now
    for (let i = 0; i < 30; i++) {
      await t.store.enqueue(job({ id: `c-${String(i).padStart(2, '0')}`, tags: ['bulk'], due: { delayMs: 60_000 } }))
    }
    await t.store.upsert(job({ id: 'c-00', tags: ['bulk'], due: { delayMs: 0 } }))
    const leases = new Leases(t.redis, { leaseMs: 60_000, maxAttempts: 3, backoffBaseMs: 1, backoffMaxMs: 1 })
    const home = t.keys.locate('c-00').shard
    const { jobs: claimed } = await leases.claim(home, await leases.seedHints(home, 16), 10)
    expect(claimed.map((j) => j.id)).toEqual(['c-00'])
    // act: steps of 4 jobs
    const result = await cancel('bulk', 4)
    // assess
    expect(result).toEqual({ cancelled: 29, inFlight: 1, recurring: 0, done: true })
    expect((await readTagPage(t.store, 'bulk', { limit: 10, cursor: null })).jobs).toMatchObject([
      { id: 'c-00', status: 'dispatching' },
    ])
    await leases.ack(home, claimed)
    expect(await indexed('bulk')).toBe(0)
  })

  it('stops starting steps when its budget runs out, reports each step, and goes on where it stopped', async () => {
    // prepare: one shard, so that steps follow one another on one clock; 10 jobs, steps of 4
    const one = testStore({ shards: 1, buckets: 4 })
    try {
      for (let i = 0; i < 10; i++)
        await one.store.enqueue(job({ id: `s-${i}`, tags: ['slow'], due: { delayMs: 60_000 } }))
      let clock = 0
      const steps: number[] = []
      const options = { stepJobs: 4, onProgress: (p: { cancelled: number }) => steps.push(p.cancelled) }
      // act: a budget of 2 ticks of a clock that ticks once a look: one step, then out of time
      const first = await cancelByTag(one.redis, one.keys, noReplicas, 'slow', {
        ...options,
        budgetMs: 2,
        now: () => clock++,
      })
      const rest = await cancelByTag(one.redis, one.keys, noReplicas, 'slow', options)
      // assess
      expect(first).toEqual({ cancelled: 4, inFlight: 0, recurring: 0, done: false })
      expect(rest).toEqual({ cancelled: 6, inFlight: 0, recurring: 0, done: true })
      expect(steps).toEqual([4, 4, 6])
      expect(await tagCount(one.redis, one.keys.shards[0]!, 'slow')).toBe(0)
    } finally {
      await one.close()
    }
  })
})
