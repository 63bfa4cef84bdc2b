// Write tokens (the API's Idempotency-Key): a write sent again with the token of an attempt that was applied changes
// nothing and answers as that attempt did: while its job is pending, and once SQS has taken it (the token is copied
// into the dispatch receipt). Found by the chaos run: a PUT that replaced a pending job was applied, its answer lost,
// the job dispatched, and the PUT sent again created the job anew: delivered twice.
import { sleep } from '../../devkit/sleep'
import { afterAll, describe, expect, it } from 'vitest'
import { Leases } from '../../src/scan/claims/leases'
import { JobStore } from '../../src/store/job-store'
import { NO_REPLICA_WAIT } from '../../src/store/redis/replication'
import { job, testStore } from '../support/engine'
import { testScanner } from '../support/scanner'
import { countIds, createQueue, receiveAll, sqsClient } from '../support/sqs'

const sqs = sqsClient()
afterAll(() => sqs.destroy())
const DAY_MS = 86_400_000

/** A store that keeps receipts, a scanner that sends to one queue, and what that queue holds. */
async function stage(name: string) {
  const t = testStore()
  const store = new JobStore(t.redis, t.keys, undefined, NO_REPLICA_WAIT, DAY_MS)
  const q = await createQueue(sqs, name)
  const s = testScanner(t, { queues: { orders: q.url }, receiptTtlMs: DAY_MS, ackHoldMs: 0 })
  const dispatched = (id: string) => s.runUntil(async () => (await store.get(id))?.status === 'dispatched')
  const pending = async () => (await store.stats()).queues.orders?.pending ?? 0
  const close = async () => {
    await s.close()
    await t.close()
  }
  return { t, store, q, dispatched, pending, close }
}

describe('a replace sent again with its write token', () => {
  it('after its job was dispatched, creates nothing and answers that the earlier attempt replaced it', async () => {
    // prepare: a pending job, replaced by a PUT with a token (due now); SQS takes the new version, the ack keeps its
    // receipt
    const { store, q, dispatched, pending, close } = await stage('token-put')
    await store.enqueue(job({ id: 'put-me', due: { delayMs: 60_000 } }))
    const put = job({ id: 'put-me', payloadJson: '{"v":2}', due: { delayMs: 0 }, writeToken: 'call-1-token' })
    const first = await store.upsert(put)
    await dispatched('put-me')
    // act: the same PUT, the same token
    const again = await store.upsert(put)
    // assess: answered as the first attempt (a replace, due when it made it due, on the queue it stored), marked a
    // replay; nothing pending
    expect(first).toMatchObject({ status: 'replaced', version: 1 })
    expect(again).toEqual({ ...first, startScanner: false, replayed: 'dispatched', queue: 'orders' })
    expect(await pending()).toBe(0)
    expect(await store.get('put-me')).toMatchObject({ status: 'dispatched' })
    expect(countIds(await receiveAll(sqs, q.url)).get('put-me')).toBe(1)
    await close()
  })

  it('while its job is still pending, changes nothing (version, due time) and answers as the earlier attempt', async () => {
    // prepare
    const { store, close } = await stage('token-put-pending')
    await store.enqueue(job({ id: 'held', due: { delayMs: 60_000 } }))
    const put = job({ id: 'held', payloadJson: '{"v":2}', due: { delayMs: 120_000 }, writeToken: 'call-2-token' })
    const first = await store.upsert(put)
    // act: sent again a moment later (a delay counts from Redis's clock: applied again, it would move the job)
    await sleep(20)
    const again = await store.upsert(put)
    // assess
    expect(again).toEqual({ ...first, startScanner: false, replayed: 'stored', queue: 'orders', groupId: '' })
    expect(await store.get('held')).toMatchObject({ payload: { v: 2 }, runAt: new Date(first.dueMs).toISOString() })
    await close()
  })

  it('with another token (or none) is a new write: it replaces the pending job, or creates one after a dispatch', async () => {
    // prepare: a PUT with a token, dispatched
    const { store, dispatched, pending, close } = await stage('token-put-other')
    await store.upsert(job({ id: 'other', due: { delayMs: 0 }, writeToken: 'call-3-token' }))
    await dispatched('other')
    // act: another call's PUT, then a third's without a token
    const created = await store.upsert(job({ id: 'other', due: { delayMs: 60_000 }, writeToken: 'call-4-token' }))
    const replaced = await store.upsert(job({ id: 'other', payloadJson: '"x"', due: { delayMs: 60_000 } }))
    // assess
    expect(created).toMatchObject({ status: 'created', version: 0 })
    expect(created.replayed).toBeUndefined()
    expect(replaced).toMatchObject({ status: 'replaced', version: 1 })
    expect(replaced.replayed).toBeUndefined()
    expect(await pending()).toBe(1)
    await close()
  })
})

describe('a create with an id sent again with its write token', () => {
  it('after its job was dispatched, is not created again, and while it is pending answers as created, not 409', async () => {
    // prepare
    const { store, q, dispatched, pending, close } = await stage('token-create')
    const now = job({ id: 'made-now', due: { delayMs: 0 }, writeToken: 'call-5-token' })
    const later = job({ id: 'made-later', due: { delayMs: 60_000 }, writeToken: 'call-6-token' })
    const [firstNow, firstLater] = [await store.enqueue(now), await store.enqueue(later)]
    await dispatched('made-now')
    // act
    const [againNow, againLater] = [await store.enqueue(now), await store.enqueue(later)]
    // assess
    expect(againNow).toEqual({ ...firstNow, startScanner: false, replayed: 'dispatched', queue: 'orders' })
    expect(againLater).toEqual({ ...firstLater, startScanner: false, replayed: 'stored', queue: 'orders', groupId: '' })
    expect(await pending()).toBe(1)
    expect(countIds(await receiveAll(sqs, q.url)).get('made-now')).toBe(1)
    await close()
  })
})

describe('a write sent again after its job died (SQS refused it on every attempt)', () => {
  it('answers with the due time that write gave the job, not the time it died', async () => {
    // prepare: a create with a token, due now; claimed a while later and refused as its own fault (1 attempt allowed)
    const t = testStore({ shards: 1, buckets: 4 })
    const shard = t.keys.shards[0]!
    const leases = new Leases(t.redis, { leaseMs: 10_000, maxAttempts: 1, backoffBaseMs: 1, backoffMaxMs: 1 })
    const made = job({ id: 'dies', due: { delayMs: 0 }, writeToken: 'call-7-token' })
    const first = await t.store.enqueue(made)
    await sleep(50)
    const claimed = await leases.claim(shard, await leases.seedHints(shard, 10), 10)
    await leases.release(
      shard,
      claimed.jobs.map((j) => ({ ...j, error: 'refused' })),
    )
    expect(await t.store.get('dies')).toMatchObject({ status: 'dead' })
    // act
    const again = await t.store.enqueue(made)
    // assess: the first attempt's answer (due when it made it due), not the dead set's score 50 ms or more later
    expect(again).toEqual({ ...first, startScanner: false, replayed: 'stored', queue: 'orders', groupId: '' })
    await t.close()
  })
})
