// The Idempotency-Key request header of job writes (POST /jobs, PUT /jobs/{id}) and DelayQueue's idempotencyKey
// option: a write sent again with the key of one that was applied changes nothing and gets that one's answer, marked
// `idempotent-replayed: true`; a key sent again with another request is a 422 naming it; a key that breaks the rule is
// a 400 naming it, and nothing is stored.
import { sleep } from '../../devkit/sleep'
import { afterAll, describe, expect, it } from 'vitest'
import { DelayQueue } from '../../src/direct/delay-queue'
import { Leases } from '../../src/scan/claims/leases'
import { ValidationError } from '../../src/errors'
import { bodyOf, redisSnapshot, request, testApi } from './api-helpers'

const api = testApi()
afterAll(() => api.close())
const key = (n: number) => `key-${n}-${Date.now().toString(36)}`

describe('Idempotency-Key on PUT /jobs/{id}', () => {
  it('answers a PUT sent again with its key as the first was answered, marked replayed, and changes nothing', async () => {
    // prepare: a pending job; a PUT replaces it
    const id = `idem-put-${Date.now()}`
    await api.call(request('PUT', `/jobs/${id}`, { body: { queue: 'orders', payload: 1, delayMs: 60_000 } }))
    const headers = { 'idempotency-key': key(1) }
    const body = { queue: 'orders', payload: 2, delayMs: 120_000 }
    const first = await api.call(request('PUT', `/jobs/${id}`, { body, headers }))
    // act: the same PUT later (applied again, its delay would count from now and move the job)
    await sleep(20)
    const again = await api.call(request('PUT', `/jobs/${id}`, { body, headers }))
    // assess
    expect(first.statusCode).toBe(200)
    expect(first.headers['idempotent-replayed']).toBeUndefined()
    expect(again.statusCode).toBe(200)
    expect(again.headers['idempotent-replayed']).toBe('true')
    expect(bodyOf(again)).toEqual(bodyOf(first))
    expect(bodyOf(await api.call(request('GET', `/jobs/${id}`)))).toMatchObject({
      payload: 2,
      runAt: bodyOf(first).runAt,
    })
  })

  it('takes a PUT with another key for a new write', async () => {
    // prepare
    const id = `idem-other-${Date.now()}`
    const body = { queue: 'orders', payload: 1, delayMs: 60_000 }
    const first = await api.call(request('PUT', `/jobs/${id}`, { body, headers: { 'idempotency-key': key(2) } }))
    // act
    const other = await api.call(
      request('PUT', `/jobs/${id}`, { body: { ...body, payload: 3 }, headers: { 'idempotency-key': key(3) } }),
    )
    // assess
    expect(first.statusCode).toBe(201)
    expect(other.statusCode).toBe(200)
    expect(other.headers['idempotent-replayed']).toBeUndefined()
    expect(bodyOf(await api.call(request('GET', `/jobs/${id}`)))).toMatchObject({ payload: 3 })
  })

  it.each([
    ['too short', 'short'],
    ['too long', 'k'.repeat(65)],
    ['a character outside the rule', 'has:colon-inside'],
    ['a space', 'has a space inside'],
  ])('refuses a key %s with a 400 naming Idempotency-Key, and stores nothing', async (_, bad) => {
    // act
    const id = `idem-bad-${Date.now()}`
    const res = await api.call(
      request('PUT', `/jobs/${id}`, { body: { queue: 'orders', payload: 1 }, headers: { 'idempotency-key': bad } }),
    )
    // assess
    expect(res.statusCode).toBe(400)
    expect(bodyOf(res).error.details).toEqual([
      { path: 'Idempotency-Key', message: 'must be 8 to 64 characters of A-Z, a-z, 0-9, "_" and "-"' },
    ])
    expect((await api.call(request('GET', `/jobs/${id}`))).statusCode).toBe(404)
  })
})

describe('Idempotency-Key on POST /jobs', () => {
  it('answers a create with an id sent again with its key 201 as the first, not 409', async () => {
    // prepare
    const id = `idem-post-${Date.now()}`
    const headers = { 'idempotency-key': key(4) }
    const first = await api.call(request('POST', '/jobs', { body: { id, queue: 'orders', payload: 1 }, headers }))
    // act
    const again = await api.call(request('POST', '/jobs', { body: { id, queue: 'orders', payload: 1 }, headers }))
    // assess
    expect(first.statusCode).toBe(201)
    expect(again.statusCode).toBe(201)
    expect(again.headers['idempotent-replayed']).toBe('true')
    expect(again.headers.location).toBe(`/jobs/${id}`)
    expect(bodyOf(again)).toEqual(bodyOf(first))
  })

  it('refuses a key on a create without an id (the key is kept under the id): 400 naming id', async () => {
    // act
    const res = await api.call(
      request('POST', '/jobs', { body: { queue: 'orders', payload: 1 }, headers: { 'idempotency-key': key(5) } }),
    )
    // assess
    expect(res.statusCode).toBe(400)
    expect(bodyOf(res).error.details).toEqual([{ path: 'id', message: 'is required with an idempotency key' }])
  })
})

describe('Idempotency-Replay-Window-Ms: how long the API answers a write sent again once its job was dispatched', () => {
  it('is on every answer of a job write, errors included, as DISPATCH_RECEIPT_TTL_MS; not on other routes', async () => {
    // act
    const id = `idem-window-${Date.now()}`
    const created = await api.call(request('POST', '/jobs', { body: { id, queue: 'orders', payload: 1 } }))
    const put = await api.call(request('PUT', `/jobs/${id}`, { body: { queue: 'orders', payload: 2 } }))
    const refused = await api.call(request('PUT', `/jobs/${id}`, { body: { queue: 'nope', payload: 2 } }))
    const taken = await api.call(request('POST', '/jobs', { body: { id, queue: 'orders', payload: 1 } }))
    const read = await api.call(request('GET', `/jobs/${id}`))
    // assess: a day, the default
    const windows = [created, put, refused, taken].map((r) => [r.statusCode, r.headers['idempotency-replay-window-ms']])
    expect(windows).toEqual([
      [201, '86400000'],
      [200, '86400000'],
      [400, '86400000'],
      [409, '86400000'],
    ])
    expect(read.headers['idempotency-replay-window-ms']).toBeUndefined()
  })

  it('is absent when the API keeps no dispatch receipts (DISPATCH_RECEIPT_TTL_MS=0)', async () => {
    // prepare
    const noReceipts = testApi({ DISPATCH_RECEIPT_TTL_MS: '0' })
    // act
    const id = `idem-no-window-${Date.now()}`
    const headers = { 'idempotency-key': key(7) }
    const put = await noReceipts.call(request('PUT', `/jobs/${id}`, { body: { queue: 'orders', payload: 1 }, headers }))
    await noReceipts.close()
    // assess
    expect(put.statusCode).toBe(201)
    expect(put.headers['idempotency-replay-window-ms']).toBeUndefined()
  })
})

describe('Idempotency-Key on POST /jobs/batch', () => {
  it('is kept with each job: the batch sent again, whole or in part, is answered job by job as it was, stored once', async () => {
    // prepare
    const tag = Date.now()
    const headers = { 'idempotency-key': key(8) }
    const jobs = [1, 2].map((n) => ({ id: `idem-batch-${tag}.${n}`, queue: 'orders', payload: n, delayMs: 60_000 }))
    const first = await api.call(request('POST', '/jobs/batch', { body: { jobs }, headers }))
    const after = await redisSnapshot(api.engine)
    // act: the whole batch again, then its second job alone
    const whole = await api.call(request('POST', '/jobs/batch', { body: { jobs }, headers }))
    const part = await api.call(request('POST', '/jobs/batch', { body: { jobs: [jobs[1]] }, headers }))
    // assess
    expect(bodyOf(first).results).toEqual(jobs.map(({ id }) => ({ id, status: 'scheduled' })))
    expect(bodyOf(whole).results).toEqual(jobs.map(({ id }) => ({ id, status: 'scheduled', replayed: true })))
    expect(bodyOf(part).results).toEqual([{ id: jobs[1]!.id, status: 'scheduled', replayed: true }])
    expect(whole.headers['idempotency-replay-window-ms']).toBe('86400000')
    expect(await redisSnapshot(api.engine)).toEqual(after)
  })

  it('refuses an entry without an id (the key is kept under it), naming id, and stores the others', async () => {
    // prepare
    const id = `idem-batch-noid-${Date.now()}`
    // act
    const res = await api.call(
      request('POST', '/jobs/batch', {
        body: {
          jobs: [
            { queue: 'orders', payload: 1 },
            { id, queue: 'orders', payload: 2 },
          ],
        },
        headers: { 'idempotency-key': key(9) },
      }),
    )
    // assess
    expect(bodyOf(res).results).toEqual([
      {
        error: {
          code: 'ValidationError',
          message: expect.any(String),
          details: [{ path: 'id', message: 'is required with an idempotency key' }],
        },
      },
      { id, status: 'scheduled' },
    ])
  })
})

describe('Idempotency-Key sent again with another request', () => {
  const reused = {
    code: 'IdempotencyKeyReused',
    message: expect.stringContaining('a key stands for one write'),
    details: [
      {
        path: 'Idempotency-Key',
        message: 'was sent before with another request for this job: make a new key for each write',
      },
    ],
  }

  it('is a 422 naming the key on POST and PUT, changes nothing, and a true replay answers what is stored', async () => {
    // prepare: a create on orders with a key
    const id = `idem-reused-${Date.now()}`
    const headers = { 'idempotency-key': key(10) }
    const sent = { id, queue: 'orders', payload: { v: 1 }, delayMs: 60_000 }
    const first = await api.call(request('POST', '/jobs', { body: sent, headers }))
    const stored = await redisSnapshot(api.engine)
    // act: the key again with another queue, another payload, another delay, by PUT; then the create as it was sent
    const otherQueue = await api.call(request('POST', '/jobs', { body: { ...sent, queue: 'emails' }, headers }))
    const otherPayload = await api.call(request('POST', '/jobs', { body: { ...sent, payload: { v: 2 } }, headers }))
    const otherDelay = await api.call(request('POST', '/jobs', { body: { ...sent, delayMs: 1 }, headers }))
    const { id: _, ...putBody } = sent
    const byPut = await api.call(request('PUT', `/jobs/${id}`, { body: putBody, headers }))
    const afterRefusals = await redisSnapshot(api.engine)
    const replay = await api.call(request('POST', '/jobs', { body: sent, headers }))
    // assess
    for (const res of [otherQueue, otherPayload, otherDelay, byPut]) {
      expect(res.statusCode).toBe(422)
      expect(bodyOf(res)).toEqual({ error: reused })
    }
    expect(afterRefusals).toEqual(stored)
    expect(replay.statusCode).toBe(201)
    expect(replay.headers['idempotent-replayed']).toBe('true')
    expect(bodyOf(replay)).toEqual(bodyOf(first))
    expect(bodyOf(await api.call(request('GET', `/jobs/${id}`)))).toMatchObject({ queue: 'orders', payload: { v: 1 } })
  })

  it("is a 422 once the job was dispatched, when its queue is not the receipt's; the same request answers the stored queue", async () => {
    // prepare: a due create with a key, claimed and acknowledged (SQS took it): only its receipt is left
    const own = testApi({ SHARDS: '1' })
    const id = `idem-reused-sent-${Date.now()}`
    const headers = { 'idempotency-key': key(11) }
    const sent = { id, queue: 'orders', payload: 1 }
    await own.call(request('POST', '/jobs', { body: sent, headers }))
    const leases = new Leases(own.engine.redis, {
      leaseMs: 30_000,
      maxAttempts: 3,
      backoffBaseMs: 10,
      backoffMaxMs: 10,
      receiptTtlMs: 86_400_000,
    })
    const { shard, bucketNo } = own.engine.keys.locate(id)
    const claim = await leases.claim(shard, [String(bucketNo)], 10)
    const messageId = '0b6a4ad6-2c1a-4bd3-9a2c-6f1f3d4b5e6f'
    await leases.ack(
      shard,
      claim.jobs.map((job) => ({ ...job, accepted: { messageId, acceptedAtMs: job.dueMs } })),
    )
    // act
    const otherQueue = await own.call(request('POST', '/jobs', { body: { ...sent, queue: 'emails' }, headers }))
    const replay = await own.call(request('POST', '/jobs', { body: sent, headers }))
    const view = await own.call(request('GET', `/jobs/${id}`))
    await own.close()
    // assess
    expect(claim.jobs.map((j) => j.id)).toEqual([id])
    expect(otherQueue.statusCode).toBe(422)
    expect(bodyOf(otherQueue)).toEqual({ error: reused })
    expect(replay.statusCode).toBe(201)
    expect(bodyOf(replay)).toMatchObject({ id, queue: 'orders' })
    expect(bodyOf(view)).toMatchObject({ status: 'dispatched', queue: 'orders' })
  })
})

describe('DelayQueue: the idempotencyKey option', () => {
  it('answers a reschedule sent again with its key as the first, marked replayed; refuses a bad key naming it', async () => {
    // prepare
    const queue = new DelayQueue(api.engine)
    const id = `idem-direct-${Date.now()}`
    const options = { idempotencyKey: key(6) }
    const first = await queue.reschedule(id, { queue: 'orders', payload: 1, delayMs: 60_000 }, options)
    // act
    const again = await queue.reschedule(id, { queue: 'orders', payload: 1, delayMs: 60_000 }, options)
    const bad = await queue.reschedule(id, { queue: 'orders', payload: 1 }, { idempotencyKey: 'x' }).catch((e) => e)
    // assess
    expect(first.replayed).toBeUndefined()
    expect(again).toEqual({ ...first, replayed: true })
    expect(bad).toBeInstanceOf(ValidationError)
    expect(bad.details).toEqual([{ path: 'idempotencyKey', message: expect.stringMatching(/^must be 8 to 64/) }])
  })
})
