// POST /jobs/batch: one answer per job, in input order; good jobs are stored even when others are refused.
import { afterAll, describe, expect, it } from 'vitest'
import { bodyOf, redisSnapshot, request, testApi } from './api-helpers'

const api = testApi({ MAX_MESSAGE_BYTES: '2048' })
afterAll(() => api.close())

const batch = (jobs: unknown) => api.call(request('POST', '/jobs/batch', { body: { jobs } }))

describe('POST /jobs/batch', () => {
  it('schedules every job and answers one result per job, in order', async () => {
    const jobs = Array.from({ length: 100 }, (_, i) => ({
      queue: 'orders',
      payload: { i },
      id: `b-${i}`,
      delayMs: 60_000 + i,
    }))
    const res = await batch(jobs)
    expect(res.statusCode).toBe(200)
    expect(bodyOf(res)).toEqual({ results: jobs.map((j) => ({ id: j.id, status: 'scheduled' })) })
    expect(bodyOf(await api.call(request('GET', '/jobs/b-57')))).toMatchObject({ payload: { i: 57 }, queue: 'orders' })
  })

  it('answers mixed results in input order and stores only the good jobs', async () => {
    // prepare
    await api.call(request('POST', '/jobs', { body: { queue: 'orders', payload: 'old', id: 'mix-taken' } }))
    // act
    const res = await batch([
      { queue: 'orders', payload: 1, id: 'mix-1' },
      { queue: 'nope', payload: 2, id: 'mix-2' },
      { queue: 'orders', payload: 3, id: 'mix-taken' },
      { queue: 'emails', payload: 'x'.repeat(3_000), id: 'mix-4' },
      { queue: 'emails', payload: 5, delayMs: 1.5, id: 'mix-5' },
      { queue: 'emails', payload: 6 },
      { queue: 'orders', payload: 7, id: 'mix-1' },
      'not a job',
    ])
    // assess
    expect(res.statusCode).toBe(200)
    const { results } = bodyOf(res)
    expect(results).toHaveLength(8)
    expect(results[0]).toEqual({ id: 'mix-1', status: 'scheduled' })
    expect(results[1]).toEqual({
      error: {
        code: 'ValidationError',
        message: expect.any(String),
        details: [
          { path: 'queue', message: 'must be one of the configured queues: "orders", "emails", "events.fifo"' },
        ],
      },
    })
    expect(results[2]).toEqual({
      error: { code: 'Conflict', message: 'a job with id "mix-taken" exists already' },
      job: expect.objectContaining({ id: 'mix-taken', queue: 'orders', status: 'scheduled' }),
    })
    expect(results[2].job).not.toHaveProperty('payload')
    expect(results[3].error).toMatchObject({ code: 'PayloadTooLarge', details: [{ path: 'payload' }] })
    expect(results[4].error.details).toEqual([{ path: 'delayMs', message: 'must be an integer >= 0' }])
    expect(results[5]).toEqual({ id: expect.stringMatching(/^[0-9A-Z]{26}$/), status: 'scheduled' })
    expect(results[6]).toMatchObject({ error: { code: 'Conflict' }, job: { id: 'mix-1' } })
    expect(results[7].error.details[0].message).toMatch(/^must be a JSON object/)
    const status = async (id: string) => (await api.call(request('GET', `/jobs/${id}`))).statusCode
    expect(await Promise.all(['mix-1', 'mix-2', 'mix-4', 'mix-5', results[5].id].map(status))).toEqual([
      200, 404, 404, 404, 200,
    ])
    expect(bodyOf(await api.call(request('GET', '/jobs/mix-taken'))).payload).toBe('old')
    expect(bodyOf(await api.call(request('GET', '/jobs/mix-1'))).payload).toBe(1)
  })

  it('answers 400 when the body is not a batch at all, and stores nothing', async () => {
    const before = await redisSnapshot(api.engine)
    const cases: [unknown, string][] = [
      [[{ queue: 'orders', payload: 1 }], ''],
      [{ queue: 'orders', payload: 1 }, 'queue'],
      [{}, 'jobs'],
      [{ jobs: 'many' }, 'jobs'],
      [{ jobs: new Array(101).fill({ queue: 'orders', payload: 1 }) }, 'jobs'],
    ]
    for (const [body, path] of cases) {
      const res = await api.call(request('POST', '/jobs/batch', { body }))
      expect(res.statusCode).toBe(400)
      expect(bodyOf(res).error).toMatchObject({
        code: 'ValidationError',
        details: expect.arrayContaining([expect.objectContaining({ path })]),
      })
    }
    expect(
      bodyOf(await api.call(request('POST', '/jobs/batch', { body: { jobs: new Array(101).fill(1) } }))).error.details,
    ).toEqual([{ path: 'jobs', message: 'must hold at most 100 jobs, got 101' }])
    expect(await redisSnapshot(api.engine)).toEqual(before)
  })

  it('answers an empty batch with no results', async () => {
    const res = await batch([])
    expect(res.statusCode).toBe(200)
    expect(bodyOf(res)).toEqual({ results: [] })
  })
})
