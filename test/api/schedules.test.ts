// The schedule routes of the HTTP API: create or replace, look up, list with a cursor, pause, resume, delete.
import { afterAll, describe, expect, it } from 'vitest'
import { bodyOf, redisSnapshot, request, testApi } from './api-helpers'

const api = testApi()
afterAll(() => api.close())

const digest = { queue: 'emails', payload: { kind: 'digest' }, cron: '0 9 * * *', timezone: 'Europe/Berlin' }

describe('schedule routes', () => {
  it('PUT creates (201 + Location), then replaces (200); GET shows the view with nextRunAt', async () => {
    // act
    const created = await api.call(request('PUT', '/schedules/digest-1', { body: digest }))
    const replaced = await api.call(request('PUT', '/schedules/digest-1', { body: { ...digest, cron: '30 9 * * *' } }))
    const got = await api.call(request('GET', '/schedules/digest-1'))
    // assess
    expect(created.statusCode).toBe(201)
    expect(created.headers.location).toBe('/schedules/digest-1')
    expect(replaced.statusCode).toBe(200)
    expect(bodyOf(got)).toMatchObject({
      id: 'digest-1',
      cron: '30 9 * * *',
      timezone: 'Europe/Berlin',
      paused: false,
      runs: 0,
      lastRunAt: null,
    })
    const next = new Date(bodyOf(got).nextRunAt)
    expect(next.getUTCMinutes()).toBe(30)
    // the pending occurrence is an ordinary job, looked up by its id
    const occurrence = await api.call(request('GET', `/jobs/digest-1@${next.getTime()}`))
    expect(bodyOf(occurrence)).toMatchObject({
      queue: 'emails',
      payload: { kind: 'digest' },
      runAt: next.toISOString(),
    })
  })

  it('pause and resume answer the view; DELETE answers 204, then 404', async () => {
    // prepare
    await api.call(request('PUT', '/schedules/digest-2', { body: digest }))
    // act + assess
    expect(bodyOf(await api.call(request('POST', '/schedules/digest-2/pause')))).toMatchObject({
      paused: true,
      nextRunAt: null,
    })
    expect(bodyOf(await api.call(request('POST', '/schedules/digest-2/resume')))).toMatchObject({ paused: false })
    expect((await api.call(request('DELETE', '/schedules/digest-2'))).statusCode).toBe(204)
    const missing = await api.call(request('GET', '/schedules/digest-2'))
    expect(missing.statusCode).toBe(404)
    expect(bodyOf(missing).error.code).toBe('NotFound')
    expect((await api.call(request('DELETE', '/schedules/digest-2'))).statusCode).toBe(404)
  })

  it('lists by id with a cursor', async () => {
    // prepare
    for (const n of [1, 2, 3]) await api.call(request('PUT', `/schedules/list-${n}`, { body: digest }))
    // act
    const first = bodyOf(await api.call(request('GET', '/schedules', { query: { limit: '2', cursor: 'digest-9' } })))
    const second = bodyOf(await api.call(request('GET', '/schedules', { query: { limit: '2', cursor: first.cursor } })))
    // assess
    expect(first.schedules.map((s: { id: string }) => s.id)).toEqual(['list-1', 'list-2'])
    expect(second).toMatchObject({ schedules: [{ id: 'list-3' }], cursor: null })
  })

  it('answers bad input with 400 naming the field and rule, and changes nothing', async () => {
    // prepare
    const before = await redisSnapshot(api.engine)
    // act
    const badCron = await api.call(request('PUT', '/schedules/bad', { body: { ...digest, cron: '0 9 * 13 *' } }))
    const fast = await api.call(
      request('PUT', '/schedules/bad', { body: { queue: 'emails', payload: 1, everyMs: 500 } }),
    )
    const badId = await api.call(request('PUT', '/schedules/no%20spaces', { body: digest }))
    const badLimit = await api.call(request('GET', '/schedules', { query: { limit: '0' } }))
    // assess
    expect(badCron.statusCode).toBe(400)
    expect(bodyOf(badCron).error.details).toEqual([
      {
        path: 'cron',
        message:
          'field 4 (month) "13" is invalid: values 1-12 or JAN-DEC, as lists (,) ranges (-) and steps (*/n or a-b/n)',
      },
    ])
    expect(bodyOf(fast).error.details).toEqual([
      { path: 'everyMs', message: 'must be an integer from 1000 to 315360000000 (3650 days)' },
    ])
    expect(bodyOf(badId).error.details[0].path).toBe('id')
    expect(bodyOf(badLimit).error.details).toEqual([{ path: 'limit', message: 'must be an integer from 1 to 100' }])
    expect(await redisSnapshot(api.engine)).toEqual(before)
  })

  it('refuses DELETE /jobs of a pending occurrence with 409 naming its schedule', async () => {
    // prepare
    const put = bodyOf(await api.call(request('PUT', '/schedules/digest-3', { body: digest })))
    // act
    const res = await api.call(request('DELETE', `/jobs/digest-3@${Date.parse(put.nextRunAt)}`))
    // assess
    expect(res.statusCode).toBe(409)
    expect(bodyOf(res).error.message).toContain('schedule "digest-3"')
  })
})
