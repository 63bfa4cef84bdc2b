// Every error answer of the API: its status, its code, its body, and that bad input leaves Redis untouched.
import { afterAll, describe, expect, it } from 'vitest'
import { freePort } from '../../local/ports'
import { createEngine } from '../../src/store/engine'
import { createApiHandler } from '../../src/api/handler'
import { Leases } from '../../src/scan/claims/leases'
import { bodyOf, lambdaContext, redisSnapshot, request, testApi, testConfig } from './api-helpers'

const api = testApi({ MAX_MESSAGE_BYTES: '2048' })
afterAll(() => api.close())

const post = (body: unknown) => api.call(request('POST', '/jobs', { body }))

describe('400 ValidationError', () => {
  it('names each bad field and its rule', async () => {
    const res = await post({ queue: 'order', payload: 1, delayMs: -5 })
    expect(res.statusCode).toBe(400)
    expect(res.headers['content-type']).toBe('application/json')
    expect(bodyOf(res)).toEqual({
      error: {
        code: 'ValidationError',
        message: 'delayMs: must be an integer >= 0',
        details: [{ path: 'delayMs', message: 'must be an integer >= 0' }],
      },
    })
    const unknownQueue = bodyOf(await post({ queue: 'order', payload: 1 }))
    expect(unknownQueue.error.details).toEqual([
      { path: 'queue', message: 'must be one of the configured queues: "orders", "emails", "events.fifo"' },
    ])
  })

  it('refuses a typo in a field name', async () => {
    const res = await post({ queue: 'orders', payload: 1, delay: 5_000 })
    expect(res.statusCode).toBe(400)
    expect(bodyOf(res).error.details).toEqual([
      {
        path: 'delay',
        message:
          'is not a known field; known: queue, payload, delayMs, runAt, id, groupId, flowKey, tags, onConflict, maxWaitMs',
      },
    ])
  })

  it('answers malformed JSON, an empty body and a non-object body with 400', async () => {
    const malformed = await api.call(request('POST', '/jobs', { rawBody: '{"queue": "orders",' }))
    expect(malformed.statusCode).toBe(400)
    expect(bodyOf(malformed).error).toMatchObject({
      code: 'ValidationError',
      details: [{ path: '', message: expect.stringMatching(/^is not valid JSON/) }],
    })
    const empty = await api.call(request('POST', '/jobs', { rawBody: '', contentType: 'application/json' }))
    expect(bodyOf(empty).error).toMatchObject({
      code: 'ValidationError',
      details: [{ path: '', message: 'a JSON body is required' }],
    })
    const array = await post([{ queue: 'orders', payload: 1 }])
    expect(array.statusCode).toBe(400)
    expect(bodyOf(array).error.details[0].message).toMatch(/^must be a JSON object/)
  })

  it('refuses text that is not valid Unicode instead of storing it altered to U+FFFD', async () => {
    // prepare: a lone surrogate (a string API Gateway can hand over, but UTF-8 cannot encode)
    const rawBody = '{"queue":"orders","payload":"\ud800"}'
    // act
    const res = await api.call(request('POST', '/jobs', { rawBody }))
    // assess
    expect(res.statusCode).toBe(400)
    expect(bodyOf(res).error.details).toEqual([{ path: '', message: 'is not valid UTF-8' }])
  })

  it('refuses __proto__ in the body without polluting anything', async () => {
    const res = await api.call(
      request('POST', '/jobs', { rawBody: '{"queue":"orders","payload":{"__proto__":{"admin":true}}}' }),
    )
    expect(res.statusCode).toBe(400)
    expect(bodyOf(res).error.details).toEqual([
      { path: 'payload.__proto__', message: 'is not allowed (prototype pollution guard)' },
    ])
    expect(({} as { admin?: boolean }).admin).toBeUndefined()
  })

  it('changes nothing in Redis, whatever the bad input', async () => {
    // prepare: some state to compare against
    await post({ queue: 'orders', payload: { keep: true }, id: 'keeper', delayMs: 60_000 })
    const before = await redisSnapshot(api.engine)
    expect(before.size).toBeGreaterThan(0)
    // act
    const answers = await Promise.all([
      post({ queue: 'orders', payload: 1, id: 'keeper', delayMs: 5 }), // 409
      post({ queue: 'nope', payload: 1, id: 'fresh-1' }),
      post({ queue: 'orders', payload: 'x'.repeat(4_000), id: 'fresh-2' }), // 413
      post({ queue: 'orders', payload: 1, id: 'fresh-3', runAt: '2027-01-01T00:00:00' }),
      api.call(request('PUT', '/jobs/keeper', { body: { queue: 'orders', payload: 2, delayMs: -1 } })),
      api.call(request('PUT', '/jobs/keeper', { body: { queue: 'orders', payload: 'y'.repeat(4_000) } })),
      api.call(
        request('PUT', '/jobs/keeper', { rawBody: 'queue=orders', contentType: 'application/x-www-form-urlencoded' }),
      ),
      api.call(request('DELETE', '/jobs/not-there')),
      api.call(
        request('POST', '/jobs/batch', { body: { jobs: new Array(101).fill({ queue: 'orders', payload: 1 }) } }),
      ),
      api.call(
        request('POST', '/jobs/batch', { body: { jobs: [{ queue: 'nope', payload: 1 }, { queue: 'orders' }] } }),
      ),
    ])
    // assess
    expect(answers.map((r) => r.statusCode)).toEqual([409, 400, 413, 400, 400, 413, 415, 404, 400, 200])
    expect(await redisSnapshot(api.engine)).toEqual(before)
  })
})

describe('413 PayloadTooLarge', () => {
  it('refuses a job whose SQS message would exceed the configured maximum', async () => {
    const res = await post({ queue: 'orders', payload: 'x'.repeat(2_048) })
    expect(res.statusCode).toBe(413)
    const { error } = bodyOf(res)
    expect(error.code).toBe('PayloadTooLarge')
    expect(error.message).toMatch(/^the SQS message would be \d+ bytes; the limit is 2048$/)
    expect(error.details).toEqual([{ path: 'payload', message: error.message }])
  })

  it('refuses a batch body above the batch limit as a whole', async () => {
    const small = testApi()
    const limited = createApiHandler(small.engine, {
      maxBatchBytes: 1_000,
      logger: { error() {}, warn() {}, info() {} },
    })
    const res = (await limited(
      request('POST', '/jobs/batch', { body: { jobs: [{ queue: 'orders', payload: 'z'.repeat(1_000) }] } }),
      lambdaContext(),
    ))!
    expect(res.statusCode).toBe(413)
    expect(JSON.parse(res.body!).error).toMatchObject({
      code: 'PayloadTooLarge',
      message: expect.stringMatching(/^the batch body is \d+ bytes; the limit is 1000/),
    })
    expect(await redisSnapshot(small.engine)).toEqual(new Map())
    await small.close()
  })
})

describe('415 UnsupportedMediaType', () => {
  it('refuses bodies that are not declared as JSON', async () => {
    for (const contentType of ['text/plain', 'application/x-www-form-urlencoded', 'application/jsonp', null]) {
      const res = await api.call(request('POST', '/jobs', { rawBody: '{"queue":"orders","payload":1}', contentType }))
      expect(res.statusCode).toBe(415)
      expect(bodyOf(res).error.code).toBe('UnsupportedMediaType')
    }
    const batch = await api.call(request('POST', '/jobs/batch', { rawBody: '{"jobs":[]}', contentType: 'text/plain' }))
    expect(batch.statusCode).toBe(415)
  })
})

describe('409 Conflict while a job is being dispatched, 404 once it is in SQS', () => {
  it('refuses to replace or cancel a job a scanner holds, shows it as dispatching, then forgets it after the ack', async () => {
    // prepare: a due job, claimed by a scanner
    const own = testApi({ SHARDS: '1' })
    const leases = new Leases(own.engine.redis, {
      leaseMs: 30_000,
      maxAttempts: 3,
      backoffBaseMs: 10,
      backoffMaxMs: 10,
    })
    await own.call(request('POST', '/jobs', { body: { queue: 'orders', payload: 1, id: 'busy-1' } }))
    const { shard, bucketNo } = own.engine.keys.locate('busy-1')
    const claim = await leases.claim(shard, [String(bucketNo)], 10)
    expect(claim.jobs.map((j) => j.id)).toEqual(['busy-1'])
    // act
    const view = await own.call(request('GET', '/jobs/busy-1'))
    const put = await own.call(
      request('PUT', '/jobs/busy-1', { body: { queue: 'orders', payload: 2, delayMs: 60_000 } }),
    )
    const del = await own.call(request('DELETE', '/jobs/busy-1'))
    const again = await own.call(request('POST', '/jobs', { body: { queue: 'orders', payload: 3, id: 'busy-1' } }))
    // assess
    expect(bodyOf(view)).toMatchObject({ id: 'busy-1', status: 'dispatching', payload: 1 })
    for (const res of [put, del]) {
      expect(res.statusCode).toBe(409)
      expect(bodyOf(res)).toEqual({
        error: {
          code: 'Conflict',
          message: 'job "busy-1" is being handed to SQS right now; it can no longer be changed or cancelled',
        },
      })
    }
    expect(again.statusCode).toBe(409)
    expect(bodyOf(again).job).toEqual(expect.objectContaining({ id: 'busy-1', status: 'dispatching' }))
    expect(bodyOf(again).job).not.toHaveProperty('payload')
    // once SQS has it, the job is no longer pending
    await leases.ack(shard, claim.jobs)
    expect((await own.call(request('GET', '/jobs/busy-1'))).statusCode).toBe(404)
    await own.close()
  })
})

describe('500 InternalError', () => {
  it('answers a generic message, logs the real error, and leaks nothing', async () => {
    // prepare: a jobs key of the wrong type makes Redis answer WRONGTYPE: a bug, not an outage
    const own = testApi({ SHARDS: '1' })
    await own.engine.redis.set(own.engine.keys.shards[0]!.jobs, 'not a hash')
    // act
    const res = await own.call(request('GET', '/jobs/any-id'))
    // assess
    expect(res.statusCode).toBe(500)
    expect(bodyOf(res)).toEqual({
      error: { code: 'InternalError', message: 'internal error (request test-request-id); it has been logged' },
    })
    expect(res.body).not.toMatch(/WRONGTYPE|redis|stack|\.ts/i)
    expect(own.logs).toEqual([
      {
        level: 'error',
        message: 'request failed',
        data: {
          requestId: 'test-request-id',
          error: expect.objectContaining({ message: expect.stringMatching(/^WRONGTYPE/) }),
        },
      },
    ])
    await own.close()
  })

  it('answers 500 for a corrupt stored record without showing it', async () => {
    const own = testApi({ SHARDS: '1' })
    const { shard, bucket } = own.engine.keys.locate('corrupt-1')
    await own.engine.redis.hset(shard.jobs, 'corrupt-1', 'secret-internal-garbage')
    await own.engine.redis.zadd(bucket, Date.now() + 60_000, 'corrupt-1')
    const res = await own.call(request('GET', '/jobs/corrupt-1'))
    expect(res.statusCode).toBe(500)
    expect(res.body).not.toContain('secret-internal-garbage')
    expect(res.body).not.toContain('corrupt')
    expect(own.logs[0]!.data!.error).toMatchObject({ message: 'corrupt job record' })
    await own.close()
  })
})

describe('503 ServiceUnavailable', () => {
  it('answers 503 with a retry hint on every route when Redis cannot be reached', async () => {
    // prepare: an engine pointed at a port nothing listens on, with the API function's settings
    const port = await freePort()
    const engine = createEngine(testConfig({ REDIS_URL: `redis://127.0.0.1:${port}` }), {
      commandTimeoutMs: 2_000,
      maxRetriesPerRequest: 1,
    })
    engine.redis.on('error', () => {}) // connection refused, over and over: expected here
    const down = testApi({}, engine)
    try {
      // act
      const answers = await Promise.all([
        down.call(request('POST', '/jobs', { body: { queue: 'orders', payload: 1 } })),
        down.call(request('POST', '/jobs/batch', { body: { jobs: [{ queue: 'orders', payload: 1 }] } })),
        down.call(request('GET', '/jobs/some-id')),
        down.call(request('PUT', '/jobs/some-id', { body: { queue: 'orders', payload: 1 } })),
        down.call(request('DELETE', '/jobs/some-id')),
        down.call(request('GET', '/stats')),
      ])
      // assess
      for (const res of answers) {
        expect(res.statusCode).toBe(503)
        expect(res.headers['retry-after']).toBe('1')
        expect(bodyOf(res)).toEqual({
          error: { code: 'ServiceUnavailable', message: 'the job store (Redis) is unavailable' },
        })
      }
      expect(down.logs.every((l) => l.level === 'warn' && l.message === 'job store unavailable')).toBe(true)
      // bad input is still a 400: validation needs no Redis
      expect((await down.call(request('POST', '/jobs', { body: { queue: 'nope', payload: 1 } }))).statusCode).toBe(400)
    } finally {
      engine.redis.disconnect()
    }
  })
})
