// Every route of the HTTP API against a real Redis, through the middy handler, as API Gateway would call it.
import { afterAll, describe, expect, it } from 'vitest'
import { bodyOf, request, testApi } from './api-helpers'

const api = testApi()
/** A whole-second ISO time `days` from now (tests must not depend on the calendar). */
const inDays = (days: number) => new Date(Math.floor(Date.now() / 1000) * 1000 + days * 86_400_000).toISOString()
// Fixed once: computing them again later could land in the next second.
const IN_30_DAYS = inDays(30)
const IN_60_DAYS = inDays(60)
const IN_90_DAYS = inDays(90)
const IN_100_DAYS = inDays(100)
const IN_100_DAYS_PLUS_2H = IN_100_DAYS.replace('Z', '+02:00')
afterAll(() => api.close())

describe('POST /jobs', () => {
  it('schedules a job: 201, Location, and the job (without its payload) in the body', async () => {
    const before = Date.now()
    const res = await api.call(
      request('POST', '/jobs', { body: { queue: 'orders', payload: { orderId: 42 }, delayMs: 900_000 } }),
    )
    expect(res.statusCode).toBe(201)
    const job = bodyOf(res)
    expect(res.headers.location).toBe(`/jobs/${job.id}`)
    expect(res.headers['content-type']).toBe('application/json')
    expect(job).toEqual({
      id: expect.stringMatching(/^[0-9A-Z]{26}$/),
      queue: 'orders',
      status: 'scheduled',
      runAt: expect.any(String),
      createdAt: expect.any(String),
    })
    expect(Date.parse(job.runAt) - before).toBeGreaterThanOrEqual(899_000)
    const stored = await api.call(request('GET', `/jobs/${job.id}`))
    expect(bodyOf(stored)).toMatchObject({ id: job.id, payload: { orderId: 42 }, runAt: job.runAt })
  })

  it('keeps a caller id and a FIFO groupId', async () => {
    const res = await api.call(
      request('POST', '/jobs', {
        body: { queue: 'events.fifo', payload: {}, runAt: IN_30_DAYS, id: 'order-42:close', groupId: 'order-42' },
      }),
    )
    expect(res.statusCode).toBe(201)
    expect(res.headers.location).toBe('/jobs/order-42:close')
    const encoded = request('GET', '/jobs/order-42%3Aclose')
    encoded.pathParameters = { id: 'order-42%3Aclose' } // should API Gateway pass it on still encoded
    expect(bodyOf(await api.call(encoded)).id).toBe('order-42:close')
    expect(bodyOf(res)).toMatchObject({
      id: 'order-42:close',
      groupId: 'order-42',
      runAt: new Date(IN_30_DAYS).toISOString(),
    })
  })

  it('answers 409 naming the existing job (never its payload) when the id is taken, and keeps the first job', async () => {
    await api.call(
      request('POST', '/jobs', { body: { queue: 'orders', payload: 'first', id: 'dup-1', delayMs: 60_000 } }),
    )
    const res = await api.call(request('POST', '/jobs', { body: { queue: 'emails', payload: 'second', id: 'dup-1' } }))
    expect(res.statusCode).toBe(409)
    expect(bodyOf(res)).toEqual({
      error: { code: 'Conflict', message: 'a job with id "dup-1" exists already' },
      job: {
        id: 'dup-1',
        queue: 'orders',
        status: 'scheduled',
        runAt: expect.any(String),
        createdAt: expect.any(String),
      },
    })
    expect(bodyOf(await api.call(request('GET', '/jobs/dup-1'))).payload).toBe('first')
  })

  it('accepts a base64-encoded body and JSON content types with parameters or +json', async () => {
    const body = { queue: 'orders', payload: 1 }
    expect((await api.call(request('POST', '/jobs', { body, base64: true }))).statusCode).toBe(201)
    expect(
      (await api.call(request('POST', '/jobs', { body, contentType: 'application/json; charset=utf-8' }))).statusCode,
    ).toBe(201)
    expect(
      (await api.call(request('POST', '/jobs', { body, contentType: 'application/vnd.sdq+json' }))).statusCode,
    ).toBe(201)
    expect(
      (
        await api.call(
          request('POST', '/jobs', { body, headers: { 'Content-Type': 'application/json' }, contentType: null }),
        )
      ).statusCode,
    ).toBe(201)
  })
})

describe('GET /jobs/{id}', () => {
  it('shows a pending job', async () => {
    await api.call(
      request('POST', '/jobs', {
        body: { queue: 'events.fifo', payload: [1, 2], id: 'view-1', groupId: 'g-1', delayMs: 5_000 },
      }),
    )
    const res = await api.call(request('GET', '/jobs/view-1'))
    expect(res.statusCode).toBe(200)
    expect(bodyOf(res)).toEqual({
      id: 'view-1',
      queue: 'events.fifo',
      status: 'scheduled',
      payload: [1, 2],
      groupId: 'g-1',
      runAt: expect.any(String),
      createdAt: expect.any(String),
    })
  })

  it('answers 404 NotFound for an unknown id', async () => {
    const res = await api.call(request('GET', '/jobs/never-was'))
    expect(res.statusCode).toBe(404)
    expect(bodyOf(res)).toEqual({ error: { code: 'NotFound', message: 'no pending job with id "never-was"' } })
  })

  it('answers 400 for an id no job can have', async () => {
    const res = await api.call(request('GET', `/jobs/${'x'.repeat(129)}`))
    expect(res.statusCode).toBe(400)
    expect(bodyOf(res).error.details).toEqual([
      { path: 'id', message: 'must be 1-128 characters of [A-Za-z0-9_.:-], not only dots' },
    ])
  })
})

describe('PUT /jobs/{id}', () => {
  it('creates a job that does not exist: 201 with Location', async () => {
    const res = await api.call(
      request('PUT', '/jobs/put-1', { body: { queue: 'orders', payload: { v: 1 }, delayMs: 600_000 } }),
    )
    expect(res.statusCode).toBe(201)
    expect(res.headers.location).toBe('/jobs/put-1')
    expect(bodyOf(res)).toMatchObject({ id: 'put-1', status: 'scheduled' })
  })

  it('replaces an existing job: 200, new time and payload, same createdAt', async () => {
    const first = bodyOf(
      await api.call(request('PUT', '/jobs/put-2', { body: { queue: 'orders', payload: { v: 1 }, delayMs: 600_000 } })),
    )
    const res = await api.call(
      request('PUT', '/jobs/put-2', {
        body: { queue: 'emails', payload: { v: 2 }, runAt: IN_100_DAYS_PLUS_2H, id: 'put-2' },
      }),
    )
    expect(res.statusCode).toBe(200)
    expect(res.headers.location).toBeUndefined()
    const view = bodyOf(await api.call(request('GET', '/jobs/put-2')))
    expect(view).toMatchObject({
      queue: 'emails',
      payload: { v: 2 },
      runAt: new Date(Date.parse(IN_100_DAYS) - 2 * 3_600_000).toISOString(),
      createdAt: first.createdAt,
    })
  })

  it('answers 400 when the body id differs from the path', async () => {
    const res = await api.call(request('PUT', '/jobs/put-3', { body: { queue: 'orders', payload: 1, id: 'other' } }))
    expect(res.statusCode).toBe(400)
    expect(bodyOf(res).error.details).toEqual([
      { path: 'id', message: 'must match the id in the path ("put-3") or be left out' },
    ])
    expect((await api.call(request('GET', '/jobs/put-3'))).statusCode).toBe(404)
  })
})

describe('DELETE /jobs/{id}', () => {
  it('cancels a pending job: 204 without body, then it is gone', async () => {
    await api.call(request('POST', '/jobs', { body: { queue: 'orders', payload: 1, id: 'del-1', delayMs: 60_000 } }))
    const res = await api.call(request('DELETE', '/jobs/del-1'))
    expect(res.statusCode).toBe(204)
    expect(res.body).toBeUndefined()
    expect((await api.call(request('GET', '/jobs/del-1'))).statusCode).toBe(404)
  })

  it('answers 404 for an unknown or already cancelled job', async () => {
    const res = await api.call(request('DELETE', '/jobs/del-1'))
    expect(res.statusCode).toBe(404)
    expect(bodyOf(res).error.code).toBe('NotFound')
  })
})

describe('GET /stats', () => {
  it('counts per configured queue, zeros included, plus inflight, dead and the next due time', async () => {
    const own = testApi()
    try {
      const empty = bodyOf(await own.call(request('GET', '/stats')))
      expect(empty).toEqual({
        queues: {
          orders: { pending: 0, dead: 0, dispatched: 0 },
          emails: { pending: 0, dead: 0, dispatched: 0 },
          'events.fifo': { pending: 0, dead: 0, dispatched: 0 },
        },
        inflight: 0,
        dead: 0,
        nextDueAt: null,
      })
      await own.call(request('POST', '/jobs', { body: { queue: 'orders', payload: 1, runAt: IN_60_DAYS } }))
      await own.call(request('POST', '/jobs', { body: { queue: 'orders', payload: 1, runAt: IN_30_DAYS } }))
      await own.call(request('POST', '/jobs', { body: { queue: 'emails', payload: 1, runAt: IN_90_DAYS } }))
      const res = await own.call(request('GET', '/stats'))
      expect(res.statusCode).toBe(200)
      expect(bodyOf(res)).toMatchObject({
        queues: { orders: { pending: 2 }, emails: { pending: 1 }, 'events.fifo': { pending: 0 } },
        nextDueAt: new Date(IN_30_DAYS).toISOString(),
      })
    } finally {
      await own.close()
    }
  })
})

describe('routing without a routeKey (catch-all route, stage in the path)', () => {
  it('routes by method and path, including a stage prefix and a URL-encoded id', async () => {
    await api.call(request('POST', '/jobs', { body: { queue: 'orders', payload: 1, id: 'route:1', delayMs: 60_000 } }))
    const event = request('GET', '/jobs/route%3A1', { routeKey: '$default' })
    delete event.pathParameters
    expect(bodyOf(await api.call(event)).id).toBe('route:1')
    const staged = request('POST', '/prod/jobs/batch', { routeKey: 'ANY /{proxy+}', body: { jobs: [] } })
    staged.requestContext.stage = 'prod'
    expect(bodyOf(await api.call(staged))).toEqual({ results: [] })
  })

  it('answers a path whose percent-encoding does not decode with a 400 naming the id, routed by key or by path', async () => {
    const byKey = request('GET', '/jobs/%ZZ')
    byKey.pathParameters = { id: '%ZZ' }
    const byPath = request('DELETE', '/jobs/%C0%AF', { routeKey: '$default' })
    delete byPath.pathParameters
    for (const event of [byKey, byPath]) {
      const res = await api.call(event)
      expect(res.statusCode).toBe(400)
      expect(bodyOf(res).error).toMatchObject({
        code: 'ValidationError',
        details: [{ path: 'id', message: 'is not a valid URL-encoded path segment' }],
      })
    }
  })

  it('answers 404 NotFound for a route it does not serve', async () => {
    const res = await api.call(request('PATCH', '/jobs/x', { routeKey: '$default', body: {} }))
    expect(res.statusCode).toBe(404)
    expect(bodyOf(res)).toEqual({ error: { code: 'NotFound', message: 'no route for PATCH /jobs/x' } })
  })
})
