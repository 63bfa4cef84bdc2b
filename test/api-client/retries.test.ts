// Retries that cannot duplicate: the signed client against the real API handler over loopback, whose writes are never
// confirmed by a replica (REDIS_WAIT_REPLICAS=1 on a Redis without one: every write reaches the primary and answers
// 503 ReplicationUnconfirmed), or whose answers are lost on the way back.
import { describe, expect, it } from 'vitest'
import { createApiHandler } from '../../src/api/handler'
import { DelayQueueApiClient, JobConflictError } from '../../src/api-client'
import type { Log } from '../../src/logger'
import { createEngine } from '../../src/store/engine'
import { servedApi, testConfig } from '../api/api-helpers'
import { serveApi } from '../support/api-server'
import { afterFirst, answerFault, unavailable } from './answer-faults'
import { testScanner } from '../support/scanner'
import { countIds, createQueue, receiveAll, sqsClient as sqsClientFor } from '../support/sqs'

const quiet: Log = { info: () => {}, warn: () => {}, error: () => {} }
const credentials = { accessKeyId: 'AKIDLOCALTEST', secretAccessKey: 'local-secret' }
const fastRetry = { attempts: 4, baseDelayMs: 10, maxDelayMs: 20 }

const served = servedApi({ REDIS_WAIT_REPLICAS: '1', REDIS_WAIT_TIMEOUT_MS: '50' })

const client = (fetch?: typeof globalThis.fetch, url = served.api.url) =>
  new DelayQueueApiClient({ url, region: 'eu-west-1', credentials, retry: fastRetry, fetch })
/** A job under `id` before the call (the write is applied; its 503, no replica confirmed it, is of no interest). */
const storedBefore = (id: string, delayMs: number) =>
  served.engine.store.enqueue({ id, queue: 'emails', payloadJson: '{}', due: { delayMs } }).catch(() => {})

/** An API that confirms its writes (no replica is waited for), on keys of its own unless `env` names a prefix. */
async function confirmingApi(env: Record<string, string> = {}) {
  const own = createEngine(testConfig(env))
  const ownApi = await serveApi(createApiHandler(own, { logger: quiet }))
  const writer = (fetch?: typeof globalThis.fetch) => client(fetch, ownApi.url)
  const close = async () => {
    await ownApi.close()
    await own.close()
  }
  return { own, ownApi, writer, close }
}
const pendingIn = async (queue: string) => (await served.engine.store.stats()).queues[queue]?.pending ?? 0

/**
 * A target queue and a scanner that keeps receipts a day, on the shared engine: `drain()` hands every job stored since
 * the stage began to SQS (a first attempt's job, dispatched before the client's retry).
 */
async function dispatchStage(queueName: string) {
  const sqsClient = sqsClientFor()
  const q = await createQueue(sqsClient, queueName)
  const s = testScanner(served.engine, { queues: { emails: q.url }, receiptTtlMs: 86_400_000, ackHoldMs: 0 })
  const before = await pendingIn('emails')
  return {
    before,
    drain: () => s.runUntil(async () => (await pendingIn('emails')) === before, 10_000),
    /** The job ids that reached the target queue, with how often each arrived. */
    inSqs: async () => countIds(await receiveAll(sqsClient, q.url)),
    close: async () => {
      await s.close()
      sqsClient.destroy()
    },
  }
}

describe('DelayQueueApiClient: a retried create exists once', () => {
  it('stores one job for a schedule() without an id whose write a replica never confirmed, and never calls it a success', async () => {
    // prepare
    const statuses = () => served.api.received.slice(from).map((r) => r.status)
    const keys = () => new Set(served.api.received.slice(from).map((r) => r.headers['idempotency-key']))
    const from = served.api.received.length
    const before = await pendingIn('emails')
    // act
    const error = await client()
      .schedule({ queue: 'emails', payload: { to: 'a@example.com' }, delayMs: 60_000 })
      .catch((e) => e)
    // assess: every attempt carried the call's one key, so the retries stored nothing more; the write was never
    // confirmed by a replica, and is not reported as a success
    expect(statuses()).toEqual([503, 503, 503, 503])
    expect(keys().size).toBe(1)
    expect(error).toMatchObject({ status: 503, code: 'ReplicationUnconfirmed', attempts: 4 })
    expect(await pendingIn('emails')).toBe(before + 1)
  })

  it('answers a retry with an absolute runAt, in the past or the future, as the attempt that stored it', async () => {
    // prepare: each first attempt is applied, and the answer the client sees is a 503
    const { own, writer, close } = await confirmingApi()
    try {
      // act
      const past = await writer(afterFirst('POST', '503')).schedule({
        id: `own-past-${Date.now()}`,
        queue: 'orders',
        payload: 1,
        runAt: 1_000_000_000_000,
      })
      const future = await writer(afterFirst('POST', '503')).schedule({
        queue: 'events.fifo',
        payload: 2,
        runAt: '2027-01-02T03:04:05.678Z',
        groupId: 'g',
      })
      // assess
      expect(past.runAt).toBe(past.createdAt)
      expect(future).toMatchObject({ runAt: '2027-01-02T03:04:05.678Z', groupId: 'g' })
      expect((await own.store.stats()).queues).toMatchObject({ orders: { pending: 1 }, 'events.fifo': { pending: 1 } })
    } finally {
      await close()
    }
  })

  it("still refuses a retry that meets somebody else's job under the id", async () => {
    // prepare: the id holds another payload (stored directly: the API would not confirm it either)
    const id = `theirs-${Date.now()}`
    const direct = createEngine(testConfig({ KEY_PREFIX: served.engine.config.keyPrefix }))
    await direct.store.enqueue({ id, queue: 'orders', payloadJson: '"theirs"', due: { delayMs: 60_000 } })
    await direct.close()
    // act: a first attempt that gets no answer, then the retry's 409
    let calls = 0
    const lost: typeof globalThis.fetch = async (url, init) => {
      if (++calls === 1) throw new TypeError('fetch failed')
      return fetch(url, init)
    }
    const error = await client(lost)
      .schedule({ id, queue: 'orders', payload: 'mine', delayMs: 60_000 })
      .catch((e) => e)
    // assess
    expect(error).toBeInstanceOf(JobConflictError)
    expect(error.existing).toMatchObject({ id, queue: 'orders' })
    expect(error.existing).not.toHaveProperty('samePayload')
  })

  it('retries a create whose answer was lost, and stores it once', async () => {
    // prepare: the first answer is dropped after the API has handled the request
    const { own, writer, close } = await confirmingApi()
    let calls = 0
    const dropFirstAnswer: typeof globalThis.fetch = async (url, init) => {
      const res = await fetch(url, init)
      if (++calls === 1) throw new TypeError('fetch failed: other side closed')
      return res
    }
    try {
      // act
      const job = await writer(dropFirstAnswer).schedule({ queue: 'orders', payload: { n: 1 }, delayMs: 5_000 })
      // assess
      expect(calls).toBe(2)
      expect((await own.store.stats()).queues.orders?.pending).toBe(1)
      expect(await own.store.get(job.id)).toMatchObject({ payload: { n: 1 } })
    } finally {
      await close()
    }
  })

  it('stores each job of a batch once and answers every one scheduled', async () => {
    // prepare: the first request is applied, and the answer the client sees is a 503
    const { own, ownApi, writer, close } = await confirmingApi()
    const jobs = [1, 2, 3].map((n) => ({ queue: 'events.fifo', payload: { n }, delayMs: 30_000 * n }))
    try {
      // act
      const results = await writer(afterFirst('POST', '503')).scheduleMany(jobs)
      // assess
      expect(results.map((r) => ('status' in r ? r.status : r.error.code))).toEqual([
        'scheduled',
        'scheduled',
        'scheduled',
      ])
      expect(ownApi.received.map((r) => r.method)).toEqual(['POST', 'POST'])
      expect((await own.store.stats()).queues['events.fifo']?.pending).toBe(3)
      for (const [i, r] of results.entries()) {
        expect(await own.store.get(r.id!)).toMatchObject({ payload: { n: i + 1 } })
      }
    } finally {
      await close()
    }
  })
})

describe('DelayQueueApiClient: a retried create whose first copy already left for SQS', () => {
  it('takes the dispatch receipt under its own id for the earlier attempt, and creates nothing again', async () => {
    // prepare: the first attempt is stored (503: no replica confirmed it) and handed to SQS before the retry
    const { before, drain, inSqs, close } = await dispatchStage('retry-receipt')
    const sendThenDrain = afterFirst('POST', 'answer', drain)
    // act
    const job = await client(sendThenDrain).schedule({ queue: 'emails', payload: { once: true } })
    // assess: the one copy is in SQS, none is pending again
    expect(await served.engine.store.get(job.id)).toMatchObject({ status: 'dispatched', queue: 'emails' })
    expect(await pendingIn('emails')).toBe(before)
    expect((await inSqs()).get(job.id)).toBe(1)
    await close()
  })
})

describe('DelayQueueApiClient: a retried PUT whose first copy already left for SQS', () => {
  // Each case: the PUT is applied (503: no replica confirmed it) and its job handed to SQS before the retry.
  it.each([
    {
      proves:
        'is answered from the dispatch receipt its own write left (the same Idempotency-Key), and creates nothing again',
      name: 'retry-put',
      id: 'put-once',
      // no job under the id before the call: the PUT creates it
      existedBefore: false,
    },
    {
      proves:
        "replaces a pending job once: applied, answered 503, dispatched, and sent again (the chaos run's finding)",
      name: 'retry-put-replace',
      id: 'put-replace',
      // a job under the id, created before the call: a replace keeps that creation time, so no look-up by time could
      // tell the PUT's own write
      existedBefore: true,
    },
  ])('$proves', async ({ name, id: idBase, existedBefore }) => {
    // prepare
    const { before, drain, inSqs, close } = await dispatchStage(name)
    const id = `${idBase}-${Date.now()}`
    if (existedBefore) await storedBefore(id, 60_000)
    const sendThenDrain = afterFirst('PUT', 'answer', drain)
    // act
    const put = await client(sendThenDrain).reschedule(id, { queue: 'emails', payload: { v: 2 }, delayMs: 0 })
    // assess: answered as the write it was (a create, or the replace); the one copy is in SQS, none is pending again
    expect(put).toMatchObject({ id, queue: 'emails', created: !existedBefore })
    expect(await served.engine.store.get(id)).toMatchObject({ status: 'dispatched', queue: 'emails' })
    expect(await pendingIn('emails')).toBe(before)
    expect((await inSqs()).get(id)).toBe(1)
    await close()
  })

  it('sends a PUT whose answer was lost again, and the retry changes nothing once the job was dispatched', async () => {
    // prepare: a pending job under the id; the PUT's answer is lost on the way back, after the API applied it, and
    // the replaced job is handed to SQS before the retry
    const { before, drain, inSqs, close } = await dispatchStage('retry-put-lost')
    const id = `put-lost-${Date.now()}`
    await storedBefore(id, 60_000)
    const loseAnswer = answerFault('PUT', 'dropped', drain, false)
    // (an earlier write's answer showed this client that the API keeps replays: here a 503, whose header says so)
    const c = client(loseAnswer.fetch)
    await c.reschedule(`${id}.earlier`, { queue: 'orders', payload: 0, delayMs: 60_000 }).catch(() => undefined)
    loseAnswer.arm()
    // act
    const put = await c.reschedule(id, { queue: 'emails', payload: { v: 2 }, delayMs: 0 })
    // assess
    expect(put).toMatchObject({ id, created: false })
    expect(await pendingIn('emails')).toBe(before)
    expect((await inSqs()).get(id)).toBe(1)
    await close()
  })

  it('does not send a PUT whose answer was lost again while no answer has shown that the API keeps replays (receipts off)', async () => {
    // prepare: an API that keeps no dispatch receipts (DISPATCH_RECEIPT_TTL_MS=0, allowed), so a key is honoured only
    // while the job is stored; the client's earlier write was answered (without the replay window header). A PUT is
    // applied, its answer lost, and the job handed to SQS before any retry.
    const noReceipts = await confirmingApi({ DISPATCH_RECEIPT_TTL_MS: '0' })
    const sqsClient = sqsClientFor()
    const q = await createQueue(sqsClient, 'retry-put-no-receipts')
    const s = testScanner(noReceipts.own, { queues: { emails: q.url }, receiptTtlMs: 0, ackHoldMs: 0 })
    const pending = async () => (await noReceipts.own.store.stats()).queues.emails?.pending ?? 0
    const id = `put-no-receipts-${Date.now()}`
    const loseAnswer = answerFault(
      'PUT',
      'dropped',
      () => s.runUntil(async () => (await pending()) === 0, 10_000),
      false,
    )
    try {
      const c = noReceipts.writer(loseAnswer.fetch)
      const earlier = await c.reschedule(`${id}.earlier`, { queue: 'orders', payload: 0, delayMs: 60_000 })
      loseAnswer.arm()
      // act
      const error = await c.reschedule(id, { queue: 'emails', payload: { v: 2 }, delayMs: 0 }).catch((e) => e)
      // assess: the lost answer is the caller's to resolve; sent again, the PUT would have created the job a second
      // time
      expect(earlier).toMatchObject({ created: true })
      expect(error).toBeInstanceOf(TypeError)
      expect(await pending()).toBe(0)
      expect(countIds(await receiveAll(sqsClient, q.url)).get(id)).toBe(1)
    } finally {
      await s.close()
      sqsClient.destroy()
      await noReceipts.close()
    }
  })

  it("sends the PUT again when the receipt found is an older job's, dispatched while the first attempt was lost", async () => {
    // prepare: a job under the id, due in 300 ms; the PUT's first request never reaches the API, and the old job is
    // handed to SQS meanwhile (its receipt carries no token of this call). The API here confirms writes without a
    // replica: the retry's write is answered.
    const plain = await confirmingApi({ KEY_PREFIX: served.engine.config.keyPrefix })
    const { drain, close } = await dispatchStage('retry-put-old')
    const id = `put-old-${Date.now()}`
    await storedBefore(id, 300)
    let first = true
    const loseFirst: typeof globalThis.fetch = async (url, init) => {
      if (!first || init?.method !== 'PUT') return fetch(url, init)
      first = false
      await drain()
      return unavailable()
    }
    try {
      // act
      const put = await plain
        .writer(loseFirst)
        .reschedule(id, { queue: 'emails', payload: { later: true }, delayMs: 0 })
      // assess: the old job's receipt was not taken for this PUT's write: the write was sent again and created the job
      expect(put).toMatchObject({ id, queue: 'emails', created: true })
      expect(await served.engine.store.get(id)).toMatchObject({ status: 'scheduled', payload: { later: true } })
    } finally {
      await drain()
      await close()
      await plain.close()
    }
  })
})

describe('DelayQueueApiClient: a PUT sent again after a 503 or a 429 (its key, no look-up)', () => {
  it('applies its own write when another writer created the job while it was throttled, never taking that job for its own', async () => {
    // prepare: writer A's first PUT is throttled (API Gateway's 429: nothing reached the handler); writer B creates
    // the job under the same id meanwhile, due when A's would be (created after A's call began: a look-up by creation
    // time could not tell B's job from A's)
    const { own, ownApi, writer, close } = await confirmingApi()
    const id = `two-writers-${Date.now()}`
    let throttled = false
    const throttleFirst: typeof globalThis.fetch = async (url, init) => {
      if (throttled || init?.method !== 'PUT') return fetch(url, init)
      throttled = true
      await writer().reschedule(id, { queue: 'orders', payload: { writer: 'B' }, delayMs: 60_000 })
      return new Response(JSON.stringify({ message: 'Too Many Requests' }), { status: 429 })
    }
    try {
      // act
      const a = await writer(throttleFirst).reschedule(id, {
        queue: 'orders',
        payload: { writer: 'A' },
        delayMs: 60_000,
      })
      // assess: A's write replaced B's (a replace: created false), and is the one stored
      expect(a).toMatchObject({ id, queue: 'orders', created: false })
      expect(await own.store.get(id)).toMatchObject({ payload: { writer: 'A' } })
      expect(ownApi.received.filter((r) => r.method === 'PUT').map((r) => r.status)).toEqual([201, 200])
    } finally {
      await close()
    }
  })

  it('answers created for the job its own first attempt created, answered 503 by an API without receipts', async () => {
    // prepare: receipts off (no replay window: the client has not seen one); the first PUT creates the job, and
    // the answer the client sees is a 503
    const { own, ownApi, writer, close } = await confirmingApi({ DISPATCH_RECEIPT_TTL_MS: '0' })
    const id = `put-own-503-${Date.now()}`
    const answerLost = afterFirst('PUT', '503')
    try {
      // act
      const put = await writer(answerLost).reschedule(id, { queue: 'orders', payload: { v: 1 }, delayMs: 60_000 })
      // assess: the retry, on the same key, is answered as the attempt that created the job; nothing is rewritten
      expect(put).toMatchObject({ id, created: true })
      expect(ownApi.received.filter((r) => r.method === 'PUT').map((r) => r.status)).toEqual([201, 201])
      expect(await own.store.get(id)).toMatchObject({ payload: { v: 1 } })
      expect((await own.store.stats()).queues.orders?.pending).toBe(1)
    } finally {
      await close()
    }
  })
})

describe('DelayQueueApiClient: retried creates with ids given, whose first copies already left for SQS', () => {
  it('takes their dispatch receipts, one POST and a batch, and creates none of them again', async () => {
    // prepare: each first attempt is stored (503: no replica confirmed it) and handed to SQS before its retry
    const { before, drain, inSqs, close } = await dispatchStage('retry-given')
    const drained = new Set<string>()
    const sendThenDrain: typeof globalThis.fetch = async (url, init) => {
      const res = await fetch(url, init)
      const key = `${init?.method} ${String(url)}`
      if (init?.method === 'POST' && !drained.has(key)) {
        drained.add(key)
        await drain()
      }
      return res
    }
    const c = client(sendThenDrain)
    const tag = Date.now()
    // act
    const one = await c.schedule({ id: `given-${tag}`, queue: 'emails', payload: { n: 0 } })
    const many = await c.scheduleMany([1, 2].map((n) => ({ id: `given-${tag}.${n}`, queue: 'emails', payload: { n } })))
    // assess: each is answered scheduled, is in SQS once, and none is pending again
    expect(one.id).toBe(`given-${tag}`)
    expect(many).toEqual([1, 2].map((n) => ({ id: `given-${tag}.${n}`, status: 'scheduled' })))
    expect(await pendingIn('emails')).toBe(before)
    const counts = await inSqs()
    expect([0, 1, 2].map((n) => counts.get(n ? `given-${tag}.${n}` : `given-${tag}`))).toEqual([1, 1, 1])
    await close()
  })
})

describe('DelayQueueApiClient: a batch refused as a whole after its jobs were stored and sent', () => {
  it('takes their dispatch receipts before sending the batch again, and creates none of them again', async () => {
    // prepare: the first request stores the jobs, SQS takes them, and the answer the client sees is a 503
    const { before, drain, inSqs, close } = await dispatchStage('retry-batch-lost')
    const answerLost = afterFirst('POST', '503', drain)
    const tag = Date.now()
    // act
    const many = await client(answerLost).scheduleMany(
      [1, 2].map((n) => ({ id: `lost-${tag}.${n}`, queue: 'emails', payload: { n } })),
    )
    // assess: each is answered scheduled and is in SQS once; none is pending again
    expect(many).toEqual([1, 2].map((n) => ({ id: `lost-${tag}.${n}`, status: 'scheduled' })))
    expect(await pendingIn('emails')).toBe(before)
    const counts = await inSqs()
    expect([1, 2].map((n) => counts.get(`lost-${tag}.${n}`))).toEqual([1, 1])
    await close()
  })
})

describe('DelayQueueApiClient: a batch refused as a whole whose jobs are still stored', () => {
  it('sends it again on its key, and the API answers every job scheduled without storing it again', async () => {
    // prepare: the first request stores the jobs (due in a minute: they stay), and the answer the client sees is a 503
    const { own, ownApi, writer, close } = await confirmingApi()
    const tag = Date.now()
    try {
      // act
      const many = await writer(afterFirst('POST', '503')).scheduleMany(
        [1, 2].map((n) => ({ id: `kept-${tag}.${n}`, queue: 'emails', payload: { n }, delayMs: 60_000 })),
      )
      // assess: both scheduled, stored once, both requests on the same key
      expect(many).toEqual([1, 2].map((n) => ({ id: `kept-${tag}.${n}`, status: 'scheduled' })))
      const keys = ownApi.received.map((r) => r.headers['idempotency-key'])
      expect(keys).toHaveLength(2)
      expect(keys[0]).toMatch(/^[A-Za-z0-9_-]{22}$/)
      expect(keys[1]).toBe(keys[0])
      expect((await own.store.stats()).queues.emails?.pending).toBe(2)
    } finally {
      await close()
    }
  })
})
