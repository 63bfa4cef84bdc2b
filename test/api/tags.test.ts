// Tags through the HTTP API: a job's tags are validated and answered; GET /jobs?tag= lists the jobs with a tag and
// DELETE /jobs?tag= cancels them, answering how many (every answer checked against docs/openapi.yaml).
import { afterAll, describe, expect, it } from 'vitest'
import { bodyOf, request, testApi } from './api-helpers'

const api = testApi()
afterAll(() => api.close())
const create = (id: string, tags?: unknown) =>
  api.call(request('POST', '/jobs', { body: { id, queue: 'orders', payload: { id }, delayMs: 600_000, tags } }))

describe('tags through the API', () => {
  it('lists and cancels the jobs of one tag, and leaves the others', async () => {
    // prepare
    for (const id of ['o7-remind', 'o7-close', 'o7-follow'])
      expect((await create(id, ['order:7'])).statusCode).toBe(201)
    await create('o8-close', ['order:8'])
    // act
    const listed = bodyOf(await api.call(request('GET', '/jobs', { query: { tag: 'order:7', limit: '2' } })))
    const rest = bodyOf(await api.call(request('GET', '/jobs', { query: { tag: 'order:7', cursor: listed.cursor } })))
    const cancelled = await api.call(request('DELETE', '/jobs', { query: { tag: 'order:7' } }))
    // assess
    expect(listed.jobs.map((j: { id: string }) => j.id)).toEqual(['o7-close', 'o7-follow'])
    expect(listed.jobs[0]).toMatchObject({ status: 'scheduled', tags: ['order:7'], payloadBytes: 17 })
    expect(rest).toMatchObject({ jobs: [{ id: 'o7-remind' }], cursor: null })
    expect(cancelled.statusCode).toBe(200)
    expect(bodyOf(cancelled)).toEqual({ tag: 'order:7', cancelled: 3, inFlight: 0, recurring: 0, done: true })
    expect((await api.call(request('GET', '/jobs/o7-close'))).statusCode).toBe(404)
    expect(bodyOf(await api.call(request('GET', '/jobs/o8-close')))).toMatchObject({ tags: ['order:8'] })
  })

  it('answers 400 naming the field for bad tags, and changes nothing', async () => {
    const eleven = Array.from({ length: 11 }, (_, i) => `t${i}`)
    for (const tags of [['a b'], ['x', 'x'], eleven, 'order:1', [''], ['a'.repeat(65)], ['line\nbreak']]) {
      // act
      const answer = await create('bad-tags', tags)
      // assess
      expect(answer.statusCode).toBe(400)
      expect(bodyOf(answer).error.details.every((d: { path: string }) => d.path.startsWith('tags'))).toBe(true)
    }
    expect((await api.call(request('GET', '/jobs/bad-tags'))).statusCode).toBe(404)
    for (const [method, query, path] of [
      ['DELETE', {}, 'tag'],
      ['DELETE', { tag: 'a b' }, 'tag'],
      ['GET', { tag: 'a b' }, 'tag'],
      ['GET', { tag: 'a', queue: 'orders' }, 'queue'],
      ['GET', { tag: 'a', cursor: 'no good' }, 'cursor'],
    ] as const) {
      const answer = await api.call(request(method, '/jobs', { query }))
      expect(answer.statusCode).toBe(400)
      expect(bodyOf(answer).error.details[0].path).toBe(path)
    }
  })

  it('tags the jobs of a batch like single ones', async () => {
    // act
    const jobs = ['b7-a', 'b7-b'].map((id) => ({
      id,
      queue: 'orders',
      payload: 1,
      delayMs: 600_000,
      tags: ['batch:7'],
    }))
    const answer = await api.call(request('POST', '/jobs/batch', { body: { jobs } }))
    // assess
    expect(answer.statusCode).toBe(200)
    const listed = bodyOf(await api.call(request('GET', '/jobs', { query: { tag: 'batch:7' } })))
    expect(listed.jobs.map((j: { id: string }) => j.id)).toEqual(['b7-a', 'b7-b'])
  })

  it('tags a recurring schedule: its occurrence is listed by tag, and a cancel by tag leaves it, counted', async () => {
    // prepare
    const put = await api.call(
      request('PUT', '/schedules/o9-remind', {
        body: { queue: 'orders', payload: 1, everyMs: 3_600_000, tags: ['order:9'] },
      }),
    )
    await create('o9-close', ['order:9'])
    // act
    const listed = bodyOf(await api.call(request('GET', '/jobs', { query: { tag: 'order:9' } })))
    const cancelled = bodyOf(await api.call(request('DELETE', '/jobs', { query: { tag: 'order:9' } })))
    // assess
    expect(put.statusCode).toBe(201)
    expect(bodyOf(put).tags).toEqual(['order:9'])
    const occurrence = `o9-remind@${Date.parse(bodyOf(put).nextRunAt)}`
    expect(listed.jobs.map((j: { id: string }) => j.id)).toEqual([occurrence, 'o9-close'].sort())
    expect(cancelled).toEqual({ tag: 'order:9', cancelled: 1, inFlight: 0, recurring: 1, done: true })
    expect((await api.call(request('GET', `/jobs/${encodeURIComponent(occurrence)}`))).statusCode).toBe(200)
    const schedules = bodyOf(await api.call(request('GET', '/schedules', { query: { tag: 'order:9' } })))
    expect(schedules).toMatchObject({ schedules: [{ id: 'o9-remind', tags: ['order:9'] }], cursor: null })
    await api.call(request('DELETE', '/schedules/o9-remind'))
  })

  it('answers 400 naming the field for a schedule with bad tags, and stores nothing', async () => {
    // act
    const answer = await api.call(
      request('PUT', '/schedules/bad-tagged', {
        body: { queue: 'orders', payload: 1, everyMs: 60_000, tags: ['a b'] },
      }),
    )
    // assess
    expect(answer.statusCode).toBe(400)
    expect(bodyOf(answer).error.details).toEqual([{ path: 'tags.0', message: expect.stringContaining('1-64') }])
    expect((await api.call(request('GET', '/schedules/bad-tagged'))).statusCode).toBe(404)
  })
})
