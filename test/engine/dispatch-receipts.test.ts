// Dispatch receipts: once SQS accepted a job, a lookup by id still says when it was due, when SQS took it and as
// which message, for DISPATCH_RECEIPT_TTL_MS; written by the ack, kept in hourly hashes that expire whole.
import { afterAll, describe, expect, it } from 'vitest'
import { JobStore } from '../../src/store/job-store'
import { NO_REPLICA_WAIT } from '../../src/store/redis/replication'
import { RECEIPT_HOUR_MS, receiptSlot } from '../../src/store/keys'
import { decodeReceipt, encodeReceipt, receiptExpiry, receiptHour } from '../../src/store/receipt'
import { job, testStore } from '../support/engine'
import { testQueue } from '../support/schedules'
import { testScanner } from '../support/scanner'
import { createQueue, receiveAll, sqsClient } from '../support/sqs'

const sqs = sqsClient()
afterAll(() => sqs.destroy())
const DAY_MS = 86_400_000

function receiptStore(t: ReturnType<typeof testStore>, ttlMs = DAY_MS) {
  return new JobStore(t.redis, t.keys, undefined, NO_REPLICA_WAIT, ttlMs)
}

/** What a lookup answers for a job of 'orders' that SQS took as `messageId` on its first attempt, due at `dueMs`. */
const dispatchedView = (id: string, dueMs: number, messageId: string | undefined, createdAt: unknown) => ({
  id,
  queue: 'orders',
  status: 'dispatched',
  runAt: new Date(dueMs).toISOString(),
  dueAt: new Date(dueMs).toISOString(),
  acceptedAt: expect.any(String),
  messageId,
  attempts: 1,
  createdAt,
})

describe('dispatch receipts', () => {
  it('answers "dispatched" with due time, acceptance, SQS message id, queue, attempts and creation time once SQS took the job', async () => {
    // prepare
    const t = testStore({ shards: 1 })
    const store = receiptStore(t)
    const q = await createQueue(sqs, 'receipts')
    const s = testScanner(t, { queues: { orders: q.url }, receiptTtlMs: DAY_MS, ackHoldMs: 0 })
    const { dueMs, createdAtMs } = await store.enqueue(job({ id: 'fired-job-0000000001', due: { delayMs: 50 } }))
    // act
    await s.runUntil(async () => (await store.get('fired-job-0000000001'))?.status === 'dispatched')
    const view = await store.get('fired-job-0000000001')
    // assess: the receipt names the message SQS holds
    const [message] = await receiveAll(sqs, q.url)
    expect(view).toEqual(
      dispatchedView('fired-job-0000000001', dueMs, message!.MessageId, new Date(createdAtMs).toISOString()),
    )
    expect(Date.parse(view!.acceptedAt!)).toBeGreaterThanOrEqual(dueMs - 50)
    expect(Date.parse(view!.acceptedAt!)).toBeLessThan(Date.now() + 1_000)
    await s.close()
    await t.close()
  })

  it('keeps receipts in hourly hashes that expire a retention after their hour, and takes a re-enqueue of the id', async () => {
    // prepare
    const t = testStore({ shards: 1 })
    const store = receiptStore(t)
    const q = await createQueue(sqs, 'receipts-hours')
    const s = testScanner(t, { queues: { orders: q.url }, receiptTtlMs: DAY_MS, ackHoldMs: 0 })
    await store.enqueue(job({ id: 'again', due: { delayMs: 0 } }))
    await s.runUntil(async () => (await store.get('again'))?.status === 'dispatched')
    // act: the same id, enqueued again after its dispatch
    const second = await store.enqueue(job({ id: 'again', due: { delayMs: 60_000 } }))
    // assess: the enqueue is a create, the lookup shows the pending job, and the receipt's hash expires in bulk
    expect(second.status).toBe('created')
    expect((await store.get('again'))!.status).toBe('scheduled')
    // (KEYS would see one node of a cluster: the hash is named from the hour and the id's slot)
    const hour = receiptHour(Date.now())
    const candidates = [hour, hour - 1].map((h) => t.keys.shards[0]!.receipts(h, receiptSlot('again')))
    const held = []
    for (const key of candidates) if (await t.redis.hexists(key, 'again')) held.push(key)
    expect(held).toHaveLength(1)
    const expiresAt = await t.redis.pexpiretime(held[0]!)
    expect(expiresAt).toBe(receiptExpiry(Number(held[0]!.split(':').at(-2)), DAY_MS))
    expect(expiresAt - Date.now()).toBeGreaterThan(DAY_MS)
    expect(expiresAt - Date.now()).toBeLessThanOrEqual(DAY_MS + RECEIPT_HOUR_MS)
    await s.close()
    await t.close()
  })

  it('writes no receipt with DISPATCH_RECEIPT_TTL_MS=0: the job is gone once in SQS', async () => {
    // prepare
    const t = testStore({ shards: 1 })
    const store = receiptStore(t, 0)
    const q = await createQueue(sqs, 'receipts-off')
    const s = testScanner(t, { queues: { orders: q.url }, receiptTtlMs: 0, ackHoldMs: 0 })
    await store.enqueue(job({ id: 'no-receipt' }))
    // act
    await s.runUntil(async () => (await store.get('no-receipt')) === null)
    // assess
    const hour = receiptHour(Date.now())
    for (const h of [hour, hour - 1]) {
      expect(await t.redis.exists(t.keys.shards[0]!.receipts(h, receiptSlot('no-receipt')))).toBe(0)
    }
    expect(await receiveAll(sqs, q.url)).toHaveLength(1)
    await s.close()
    await t.close()
  })

  it('answers "dispatched" for an occurrence of a schedule, its receipt written with the ack that makes the next one', async () => {
    // prepare: a schedule every second from the next whole second, on a store with receipts
    const t = testStore({ shards: 2 })
    const store = receiptStore(t)
    const schedules = testQueue(t)
    const q = await createQueue(sqs, 'receipts-occurrences')
    const s = testScanner(t, { queues: { orders: q.url }, receiptTtlMs: DAY_MS, ackHoldMs: 0 })
    const start = Math.ceil((Date.now() + 200) / 1000) * 1000
    await schedules.putSchedule('nightly-report-00001', { queue: 'orders', payload: 1, everyMs: 1000, startAt: start })
    const first = `nightly-report-00001@${start}`
    // act: the scanner sends the first occurrence and acks it
    await s.runUntil(async () => (await store.get(first))?.status === 'dispatched')
    // assess: its receipt names the message SQS holds; the next occurrence is pending
    const [message] = await receiveAll(sqs, q.url)
    expect(JSON.parse(message!.Body!)).toMatchObject({ id: first, scheduleId: 'nightly-report-00001' })
    expect(await store.get(first)).toEqual(dispatchedView(first, start, message!.MessageId, expect.any(String)))
    expect((await store.get(`nightly-report-00001@${start + 1000}`))?.status).toMatch(
      /scheduled|dispatching|dispatched/,
    )
    expect((await schedules.getSchedule('nightly-report-00001'))?.runs).toBeGreaterThanOrEqual(1)
    await s.close()
    await t.close()
  })

  it('encodes a receipt in under 64 characters (a listpack value) and reads back every field, UUID or not', () => {
    // prepare
    const uuid = {
      attempts: 3,
      dueMs: 1_795_000_000_123,
      acceptedAtMs: 1_795_000_000_100,
      queue: 'orders.fifo',
      createdAtMs: 1_795_000_000_000,
    }
    const other = { ...uuid, attempts: 1, acceptedAtMs: 1_795_000_004_000, createdAtMs: 1_794_999_000_000 }
    // act
    const a = encodeReceipt({ ...uuid, messageId: '5fea7756-0ea4-451a-a703-a558b933e274' })
    const b = encodeReceipt({ ...other, messageId: 'local-message-7' })
    // assess: the UUID takes 22 characters; a clock estimate a little before the due time survives
    expect(a.length).toBeLessThan(64)
    expect(decodeReceipt(a)).toEqual({ ...uuid, messageId: '5fea7756-0ea4-451a-a703-a558b933e274' })
    expect(decodeReceipt(b)).toEqual({ ...other, messageId: 'local-message-7' })
  })
})
