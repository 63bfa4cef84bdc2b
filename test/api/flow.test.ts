// The flow control routes of the HTTP API: pause, resume and rate a target queue or a flow key, list the settings;
// bad input answered 400 naming the field, changing nothing. A job carries its flow key, and GET shows it.
import { afterAll, describe, expect, it } from 'vitest'
import { bodyOf, redisSnapshot, request, testApi } from './api-helpers'

const api = testApi()
afterAll(() => api.close())

describe('flow control routes', () => {
  it('pauses and rates a queue and a key, lists them, and resumes', async () => {
    // act
    const paused = await api.call(request('PUT', '/flow/queues/orders', { body: { paused: true } }))
    const rated = await api.call(request('PUT', '/flow/keys/mail%2Fprovider', { body: { rate: 50, burst: 5 } }))
    const listed = await api.call(request('GET', '/flow'))
    const resumed = await api.call(request('PUT', '/flow/queues/orders', { body: { paused: false } }))
    const defaultBurst = await api.call(request('PUT', '/flow/keys/sms', { body: { rate: 200 } }))
    // assess
    expect(paused.statusCode).toBe(200)
    expect(bodyOf(paused)).toEqual({ queue: 'orders', paused: true })
    expect(bodyOf(rated)).toEqual({ flowKey: 'mail/provider', paused: false, rate: 50, burst: 5 })
    expect(bodyOf(listed).settings).toEqual([
      { flowKey: 'mail/provider', paused: false, rate: 50, burst: 5 },
      { queue: 'orders', paused: true },
    ])
    expect(bodyOf(resumed)).toEqual({ queue: 'orders', paused: false, resumed: 0 })
    expect(bodyOf(defaultBurst)).toMatchObject({ rate: 200, burst: 20 })
    // a rate removed leaves no setting
    await api.call(request('PUT', '/flow/keys/sms', { body: { rate: null } }))
    expect(bodyOf(await api.call(request('GET', '/flow'))).settings).toEqual([
      { flowKey: 'mail/provider', paused: false, rate: 50, burst: 5 },
    ])
  })

  it('keeps a job flow key and shows it on GET', async () => {
    // act
    const created = await api.call(
      request('POST', '/jobs', {
        body: { id: 'flow-1', queue: 'orders', payload: {}, delayMs: 60_000, flowKey: 'tenant-7' },
      }),
    )
    const got = await api.call(request('GET', '/jobs/flow-1'))
    // assess
    expect(created.statusCode).toBe(201)
    expect(bodyOf(got)).toMatchObject({ id: 'flow-1', flowKey: 'tenant-7', status: 'scheduled' })
  })

  it('answers bad input with 400 naming the field and rule, and changes nothing', async () => {
    // prepare
    const before = await redisSnapshot(api.engine)
    // act
    const unknownQueue = await api.call(request('PUT', '/flow/queues/nope', { body: { paused: true } }))
    const badRate = await api.call(request('PUT', '/flow/keys/k', { body: { rate: 0 } }))
    const burstAlone = await api.call(request('PUT', '/flow/keys/k', { body: { burst: 3 } }))
    const nothing = await api.call(request('PUT', '/flow/keys/k', { body: {} }))
    const badKey = await api.call(request('PUT', '/flow/keys/two%20words', { body: { paused: true } }))
    const badJobKey = await api.call(
      request('POST', '/jobs', { body: { queue: 'orders', payload: {}, flowKey: 'has space' } }),
    )
    // assess
    expect(bodyOf(unknownQueue).error.details[0].path).toBe('queue')
    expect(bodyOf(badRate).error.details).toEqual([
      { path: 'rate', message: 'must be a number of jobs per second >= 0.000001 and <= 100000' },
    ])
    expect(bodyOf(burstAlone).error.details).toEqual([{ path: 'burst', message: 'is only allowed with a rate' }])
    expect(bodyOf(nothing).error.details).toEqual([{ path: '', message: 'must set "paused", "rate" or both' }])
    expect(bodyOf(badKey).error.details).toEqual([
      { path: 'flowKey', message: 'must be 1-128 printable ASCII characters without spaces' },
    ])
    expect(bodyOf(badJobKey).error.details).toEqual([
      { path: 'flowKey', message: 'must be 1-128 printable ASCII characters without spaces' },
    ])
    for (const r of [unknownQueue, badRate, burstAlone, nothing, badKey, badJobKey]) expect(r.statusCode).toBe(400)
    expect(await redisSnapshot(api.engine)).toEqual(before)
  })

  it('pauses and resumes a tag, and refuses a rate for one, naming the field', async () => {
    // act
    const paused = await api.call(request('PUT', '/flow/tags/order%3A42', { body: { paused: true } }))
    const listed = bodyOf(await api.call(request('GET', '/flow'))).settings
    const rated = await api.call(request('PUT', '/flow/tags/order%3A42', { body: { rate: 5 } }))
    const resumed = await api.call(request('PUT', '/flow/tags/order%3A42', { body: { paused: false } }))
    // assess
    expect(paused.statusCode).toBe(200)
    expect(bodyOf(paused)).toEqual({ tag: 'order:42', paused: true })
    expect(listed).toContainEqual({ tag: 'order:42', paused: true })
    expect(rated.statusCode).toBe(400)
    expect(bodyOf(rated).error.details[0].path).toBe('rate')
    expect(bodyOf(resumed)).toEqual({ tag: 'order:42', paused: false, resumed: 0 })
  })
})
