// Jobs of an HTTP target queue are checked at enqueue, through the real API: a bad request is a 400 naming the field
// and the rule, and changes nothing in Redis; a good one is scheduled, the queue's defaults filling what it leaves out.
import { afterAll, describe, expect, it } from 'vitest'
import { bodyOf, redisSnapshot, request, testApi } from '../api/api-helpers'

const HTTP_TARGETS = JSON.stringify({
  emails: { method: 'PUT', headers: { 'x-team': 'billing' } },
  orders: { url: 'https://hooks.example.com/orders' },
})
const real = testApi({ HTTP_TARGETS })
const local = testApi({ HTTP_TARGETS, DEPLOY_STAGE: 'local' })
afterAll(async () => {
  await real.close()
  await local.close()
})

const post = (api: typeof real, payload: unknown, queue = 'emails') =>
  api.call(request('POST', '/jobs', { body: { queue, payload } }))

describe('HTTP jobs at enqueue', () => {
  it.each([
    ['an http URL on a real stage', { url: 'http://hooks.example.com/x' }, 'payload.url', 'must use https'],
    [
      'no URL where the queue has no default',
      { body: { a: 1 } },
      'payload.url',
      'is required (the queue has no default URL)',
    ],
    ['a relative URL', { url: '/hook' }, 'payload.url', 'must be an absolute URL'],
    [
      'credentials in the URL',
      { url: 'https://u:p@hooks.example.com/' },
      'payload.url',
      'must not carry credentials: use an authorization header',
    ],
    [
      'a forbidden header',
      { url: 'https://h.example.com/', headers: { Host: 'internal' } },
      'payload.headers.Host',
      'is set by the forwarder and cannot be given',
    ],
    [
      'a signature header',
      { url: 'https://h.example.com/', headers: { 'webhook-signature': 'v1,x' } },
      'payload.headers.webhook-signature',
      'is set by the forwarder and cannot be given',
    ],
    [
      'a header with a line break',
      { url: 'https://h.example.com/', headers: { 'x-a': 'a\r\nx-b: c' } },
      'payload.headers.x-a',
      'must hold only printable Latin-1 characters (no line breaks or control characters)',
    ],
    [
      'an unknown method',
      { url: 'https://h.example.com/', method: 'TRACE' },
      'payload.method',
      'must be one of GET, POST, PUT, PATCH, DELETE',
    ],
    [
      'a body on GET',
      { url: 'https://h.example.com/', method: 'GET', body: 'x' },
      'payload.body',
      'must be left out for GET',
    ],
    [
      'a body over 256 KiB',
      { url: 'https://h.example.com/', body: 'x'.repeat(256 * 1024 + 1) },
      'payload.body',
      'must be at most 262144 bytes',
    ],
    [
      'too many headers',
      {
        url: 'https://h.example.com/',
        headers: Object.fromEntries(Array.from({ length: 33 }, (_, i) => [`x-${i}`, 'v'])),
      },
      'payload.headers',
      'must hold at most 32 headers',
    ],
    [
      'an unknown field',
      { url: 'https://h.example.com/', timeout: 5 },
      'payload',
      'has unknown fields timeout (known: url, method, headers, body, callbacks)',
    ],
    [
      'an unknown field of callbacks',
      { url: 'https://h.example.com/', callbacks: { succes: 'https://h.example.com/s' } },
      'payload.callbacks',
      'has unknown fields succes (known: success, failure)',
    ],
    [
      'a header value beyond Latin-1 (HTTP cannot carry it)',
      { url: 'https://h.example.com/', headers: { 'x-label': 'ok ✓' } },
      'payload.headers.x-label',
      'must hold only printable Latin-1 characters (no line breaks or control characters)',
    ],
    [
      'a payload that is not an object',
      'https://h.example.com/',
      'payload',
      'must be an object { url, method, headers, body, callbacks } on an HTTP target queue',
    ],
    [
      'an http callback on a real stage',
      { url: 'https://h.example.com/', callbacks: { failure: 'http://h.example.com/f' } },
      'payload.callbacks.failure',
      'must use https',
    ],
  ])('refuses %s with a 400 naming the field and rule, changing nothing', async (_, payload, path, message) => {
    // prepare
    const before = await redisSnapshot(real.engine)
    // act
    const res = await post(real, payload)
    // assess
    expect(res.statusCode).toBe(400)
    expect(bodyOf(res).error.details).toContainEqual({ path, message })
    expect(await redisSnapshot(real.engine)).toEqual(before)
  })

  it('refuses a recurring schedule on an HTTP target queue whose request is bad, as a job, changing nothing', async () => {
    // prepare
    const before = await redisSnapshot(real.engine)
    const put = (payload: unknown) =>
      real.call(request('PUT', '/schedules/hourly-ping', { body: { queue: 'emails', everyMs: 3_600_000, payload } }))
    // act
    const res = await put({ url: 'http://h.example.com/', headers: { Host: 'internal' } })
    // assess: every occurrence would have been dead-lettered
    expect(res.statusCode).toBe(400)
    expect(bodyOf(res).error.details).toEqual(
      expect.arrayContaining([
        { path: 'payload.url', message: 'must use https' },
        { path: 'payload.headers.Host', message: 'is set by the forwarder and cannot be given' },
      ]),
    )
    expect(await redisSnapshot(real.engine)).toEqual(before)
    expect((await put({ url: 'https://h.example.com/ping' })).statusCode).toBeLessThan(300)
  })

  it('schedules a valid request, and one that takes its URL from the queue default', async () => {
    const res = await post(real, {
      url: 'https://hooks.example.com/a',
      headers: { authorization: 'Bearer t' },
      body: { a: 1 },
    })
    expect(res.statusCode).toBe(201)
    expect((await post(real, { body: 'hello' }, 'orders')).statusCode).toBe(201)
  })

  it('allows http:// on the local stage only, and leaves other queues free-form', async () => {
    expect((await post(local, { url: 'http://127.0.0.1:9/hook' })).statusCode).toBe(201)
    expect(
      (await real.call(request('POST', '/jobs', { body: { queue: 'events.fifo', payload: 'anything' } }))).statusCode,
    ).toBe(201)
  })
})
