// The Idempotency-Key request header of job writes (POST /jobs, PUT /jobs/{id}) and DelayQueue's idempotencyKey
// option: a write sent again with the key of one that was applied changes nothing and gets that one's answer, marked
// `idempotent-replayed: true`; a key that breaks the rule is a 400 naming it, and nothing is stored.
import { afterAll, describe, expect, it } from 'vitest'
import { DelayQueue } from '../../src/direct/delay-queue'
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
    await new Promise((r) => setTimeout(r, 20))
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
  it('is refused with a 400 naming Idempotency-Key (the entries carry no key), and nothing is stored', async () => {
    // prepare
    const before = await redisSnapshot(api.engine)
    const id = `idem-batch-${Date.now()}`
    // act
    const res = await api.call(
      request('POST', '/jobs/batch', {
        body: { jobs: [{ id, queue: 'orders', payload: 1 }] },
        headers: { 'idempotency-key': key(8) },
      }),
    )
    // assess
    expect(res.statusCode).toBe(400)
    expect(bodyOf(res).error.details).toEqual([
      { path: 'Idempotency-Key', message: expect.stringContaining('is not taken by POST /jobs/batch') },
    ])
    expect(await redisSnapshot(api.engine)).toEqual(before)
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
