// The API served through a Lambda Function URL (apiEndpoint=functionUrl): the same handler gets Function URL events
// (routeKey "$default", no path parameters, the URL's own domain) and answers every route as through the HTTP API.
import { afterAll, describe, expect, it } from 'vitest'
import { functionUrlEvent } from '../support/lambda'
import { bodyOf, testApi } from './api-helpers'

const api = testApi()
afterAll(() => api.close())

describe('the API behind a Function URL', () => {
  it('schedules, looks up, replaces and cancels a job, with the answers of the HTTP API', async () => {
    // act
    const created = await api.call(
      functionUrlEvent('POST', '/jobs', { id: 'fu-1', queue: 'orders', payload: { n: 1 }, delayMs: 60_000 }),
    )
    const found = await api.call(functionUrlEvent('GET', '/jobs/fu-1'))
    const replaced = await api.call(
      functionUrlEvent('PUT', '/jobs/fu-1', { queue: 'orders', payload: { n: 2 }, delayMs: 120_000 }),
    )
    const cancelled = await api.call(functionUrlEvent('DELETE', '/jobs/fu-1'))
    const gone = await api.call(functionUrlEvent('GET', '/jobs/fu-1'))
    // assess
    expect(created.statusCode).toBe(201)
    expect(created.headers?.location).toBe('/jobs/fu-1')
    expect(found.statusCode).toBe(200)
    expect(bodyOf(found)).toMatchObject({ id: 'fu-1', queue: 'orders', status: 'scheduled', payload: { n: 1 } })
    expect(replaced.statusCode).toBe(200)
    expect(cancelled.statusCode).toBe(204)
    expect(gone.statusCode).toBe(404)
  })

  it('takes a batch, an encoded id, a base64 body and a query string, and answers /stats', async () => {
    // act
    const batch = await api.call(
      functionUrlEvent('POST', '/jobs/batch', {
        jobs: [
          { queue: 'orders', payload: 1 },
          { queue: 'nope', payload: 2 },
        ],
      }),
    )
    const encoded = await api.call(
      functionUrlEvent('POST', '/jobs', { id: 'order-42:close', queue: 'orders', payload: {} }, { base64: true }),
    )
    const lookup = await api.call(functionUrlEvent('GET', '/jobs/order-42%3Aclose?verbose=1'))
    const stats = await api.call(functionUrlEvent('GET', '/stats'))
    // assess
    expect(batch.statusCode).toBe(200)
    expect(bodyOf(batch).results.map((r: Record<string, unknown>) => ('error' in r ? 'error' : r.status))).toEqual([
      'scheduled',
      'error',
    ])
    expect(encoded.statusCode).toBe(201)
    expect(lookup.statusCode).toBe(200)
    expect(bodyOf(lookup).id).toBe('order-42:close')
    expect(stats.statusCode).toBe(200)
    expect(bodyOf(stats).queues.orders.pending).toBeGreaterThanOrEqual(2)
  })

  it('answers an unknown path with a JSON 404, and bad input with a 400 naming the field', async () => {
    // act
    const unknown = await api.call(functionUrlEvent('GET', '/nothing-here'))
    const invalid = await api.call(functionUrlEvent('POST', '/jobs', { queue: 'orders', payload: 1, delayMs: -5 }))
    // assess
    expect(unknown.statusCode).toBe(404)
    expect(bodyOf(unknown).error.code).toBe('NotFound')
    expect(invalid.statusCode).toBe(400)
    expect(bodyOf(invalid).error.details).toEqual([expect.objectContaining({ path: 'delayMs' })])
  })
})
