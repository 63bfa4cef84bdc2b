// onConflict through POST /jobs: 200 when the write went to the job stored under the id, 201 when it created one;
// maxWaitMs with debounce only; bad values refused naming the field, changing nothing.
import { afterAll, describe, expect, it } from 'vitest'
import { bodyOf, request, testApi } from './api-helpers'

const api = testApi()
afterAll(() => api.close())
const post = (body: object) =>
  api.call(request('POST', '/jobs', { body: { queue: 'orders', payload: { v: 1 }, delayMs: 60_000, ...body } }))

describe('onConflict on POST /jobs', () => {
  it('answers 201 for a new id and 200 when debounce moved the stored job, capped at its first write + maxWaitMs', async () => {
    // act
    const created = await post({ id: 'digest-1', onConflict: 'debounce', maxWaitMs: 90_000 })
    const moved = await post({ id: 'digest-1', onConflict: 'debounce', maxWaitMs: 90_000, delayMs: 600_000 })
    // assess
    expect(created.statusCode).toBe(201)
    expect(moved.statusCode).toBe(200)
    expect(Date.parse(bodyOf(moved).runAt) - Date.parse(bodyOf(created).createdAt)).toBe(90_000)
    expect((await post({ id: 'digest-1' })).statusCode).toBe(409)
  })

  it('answers 400 naming the field for a bad mode or maxWaitMs, and stores nothing', async () => {
    for (const [body, path] of [
      [{ onConflict: 'merge' }, 'onConflict'],
      [{ onConflict: 'debounce' }, 'maxWaitMs'],
      [{ onConflict: 'replace', maxWaitMs: 5 }, 'maxWaitMs'],
      [{ onConflict: 'debounce', maxWaitMs: 0 }, 'maxWaitMs'],
    ] as const) {
      const answer = await post({ id: 'bad-mode', ...body })
      expect(answer.statusCode).toBe(400)
      expect(bodyOf(answer).error.details[0].path).toBe(path)
    }
    expect((await api.call(request('GET', '/jobs/bad-mode'))).statusCode).toBe(404)
  })

  it('extends a job by PUT: the due time moves, the stored payload stays', async () => {
    // prepare
    await post({ id: 'ext-1', payload: { v: 'first' } })
    // act
    const body = { queue: 'orders', payload: { v: 'second' }, delayMs: 600_000, onConflict: 'extend' }
    const extended = await api.call(request('PUT', '/jobs/ext-1', { body }))
    // assess
    expect(extended.statusCode).toBe(200)
    const stored = bodyOf(await api.call(request('GET', '/jobs/ext-1')))
    expect(stored.payload).toEqual({ v: 'first' })
    expect(Date.parse(stored.runAt) - Date.now()).toBeGreaterThan(500_000)
  })
})
