// DELETE /schedules?tag= through the HTTP API: every recurring schedule with the tag is deleted (with its pending
// occurrence), the others stay; a second call finds none; a missing or bad tag is a 400 naming `tag` that changes
// nothing (every answer checked against docs/openapi.yaml).
import { afterAll, describe, expect, it } from 'vitest'
import { bodyOf, redisSnapshot, request, testApi } from './api-helpers'

const api = testApi()
afterAll(() => api.close())
const putSchedule = (id: string, tags: string[]) =>
  api.call(request('PUT', `/schedules/${id}`, { body: { queue: 'orders', payload: 1, everyMs: 3_600_000, tags } }))
const status = async (path: string) => (await api.call(request('GET', path))).statusCode

describe('DELETE /schedules?tag=', () => {
  it('deletes only the schedules with the tag, their occurrences with them; a second call answers 0', async () => {
    // prepare: two schedules of customer 3, one of customer 4, a job of customer 3
    const occurrences: string[] = []
    for (const id of ['c3-digest', 'c3-nudge']) {
      const put = await putSchedule(id, ['customer:3'])
      expect(put.statusCode).toBe(201)
      occurrences.push(`${id}@${Date.parse(bodyOf(put).nextRunAt)}`)
    }
    expect((await putSchedule('c4-digest', ['customer:4', 'digest'])).statusCode).toBe(201)
    const job = { id: 'c3-close', queue: 'orders', payload: 1, delayMs: 600_000, tags: ['customer:3'] }
    expect((await api.call(request('POST', '/jobs', { body: job }))).statusCode).toBe(201)
    // act
    const first = await api.call(request('DELETE', '/schedules', { query: { tag: 'customer:3' } }))
    const second = await api.call(request('DELETE', '/schedules', { query: { tag: 'customer:3' } }))
    // assess
    expect(first.statusCode).toBe(200)
    expect(bodyOf(first)).toEqual({ tag: 'customer:3', deleted: 2, done: true })
    expect(bodyOf(second)).toEqual({ tag: 'customer:3', deleted: 0, done: true })
    expect(await status('/schedules/c3-digest')).toBe(404)
    expect(await status('/schedules/c3-nudge')).toBe(404)
    for (const id of occurrences) expect(await status(`/jobs/${encodeURIComponent(id)}`)).toBe(404)
    expect(bodyOf(await api.call(request('GET', '/schedules', { query: { tag: 'customer:3' } })))).toEqual({
      schedules: [],
      cursor: null,
    })
    expect(await status('/schedules/c4-digest')).toBe(200)
    expect(await status('/jobs/c3-close')).toBe(200) // a job's tag is not a schedule's: DELETE /jobs?tag= cancels it
  })

  it('answers 400 naming tag for a missing or bad tag, and changes nothing', async () => {
    // prepare
    expect((await putSchedule('kept-digest', ['kept'])).statusCode).toBe(201)
    const before = await redisSnapshot(api.engine)
    const queries: Record<string, string>[] = [{}, { tag: 'a b' }, { tag: '' }, { tag: 'x'.repeat(65) }]
    for (const query of queries) {
      // act
      const answer = await api.call(request('DELETE', '/schedules', { query }))
      // assess
      expect(answer.statusCode).toBe(400)
      expect(bodyOf(answer).error.details).toEqual([{ path: 'tag', message: expect.any(String) }])
    }
    expect(await redisSnapshot(api.engine)).toEqual(before)
    expect(await status('/schedules/kept-digest')).toBe(200)
  })
})
