// Run now over the HTTP API: POST /jobs/{id}/run (one job, the same job due now) and POST /jobs/run-due (every pending
// job due before a time, in bounded steps that answer a cursor), with the 4xx answers that change nothing.
import { afterAll, describe, expect, it } from 'vitest'
import { RUN_DUE_RUNS_PER_REQUEST } from '../../src/api/routes'
import { Leases } from '../../src/scan/claims/leases'
import { bodyOf, redisSnapshot, request, testApi } from './api-helpers'

const api = testApi()
afterAll(() => api.close())
const HOUR = 3_600_000

async function create(body: Record<string, unknown>) {
  const res = await api.call(request('POST', '/jobs', { body: { queue: 'orders', payload: { n: 1 }, ...body } }))
  expect(res.statusCode).toBe(201)
  return bodyOf(res)
}

describe('POST /jobs/{id}/run', () => {
  it('makes a job due in an hour due now: the same job, payload and creation time kept', async () => {
    // prepare
    const job = await create({ id: 'run-1', payload: { keep: true }, delayMs: HOUR })
    // act
    const res = await api.call(request('POST', '/jobs/run-1/run'))
    // assess
    expect(res.statusCode).toBe(200)
    const answer = bodyOf(res)
    expect(answer).toEqual({ id: 'run-1', runAt: expect.any(String), previousRunAt: job.runAt })
    expect(Date.parse(job.runAt) - Date.parse(answer.runAt)).toBeGreaterThan(HOUR - 10_000)
    expect(bodyOf(await api.call(request('GET', '/jobs/run-1')))).toMatchObject({
      status: 'scheduled',
      runAt: answer.runAt,
      createdAt: job.createdAt,
      payload: { keep: true },
    })
  })

  it('answers 409 while a scanner sends the job, and 404 for no such job, changing nothing', async () => {
    // prepare: a job claimed by a scanner
    await create({ id: 'run-held' })
    const shard = api.engine.keys.locate('run-held').shard
    const leases = new Leases(api.engine.redis, { leaseMs: 60_000, maxAttempts: 3, backoffBaseMs: 1, backoffMaxMs: 1 })
    const { jobs } = await leases.claim(shard, await leases.seedHints(shard, 50), 50)
    expect(jobs.map((j) => j.id)).toContain('run-held')
    const before = await redisSnapshot(api.engine)
    // act
    const held = await api.call(request('POST', '/jobs/run-held/run'))
    const missing = await api.call(request('POST', '/jobs/nobody/run'))
    const bad = await api.call(request('POST', '/jobs/bad%20id/run'))
    // assess
    expect([held.statusCode, missing.statusCode, bad.statusCode]).toEqual([409, 404, 400])
    expect(bodyOf(held).error.message).toMatch(/being handed to SQS/)
    expect(bodyOf(bad).error.details[0].path).toBe('id')
    expect(await redisSnapshot(api.engine)).toEqual(before)
  })
})

describe('POST /jobs/run-due', () => {
  it('runs now the jobs of one queue due before the time, not later ones, not other queues', async () => {
    // prepare
    await create({ id: 'due-a', delayMs: HOUR })
    await create({ id: 'due-b', queue: 'emails', delayMs: HOUR })
    await create({ id: 'due-c', delayMs: 3 * HOUR })
    const before = new Date(Date.now() + 2 * HOUR).toISOString()
    // act
    const res = await api.call(request('POST', '/jobs/run-due', { body: { before, queue: 'orders' } }))
    // assess
    expect(res.statusCode).toBe(200)
    expect(bodyOf(res)).toEqual({ promoted: 1, cursor: null })
    const runAt = async (id: string) => Date.parse(bodyOf(await api.call(request('GET', `/jobs/${id}`))).runAt)
    expect(await runAt('due-a')).toBeLessThanOrEqual(Date.now())
    expect(await runAt('due-b')).toBeGreaterThan(Date.now() + HOUR - 10_000)
    expect(await runAt('due-c')).toBeGreaterThan(Date.now() + 2 * HOUR)
  })

  it('with a tag, moves the jobs of the tag (due before the time, or all), and counts one being sent as in flight', async () => {
    // prepare: two jobs of order 11, one of them due now and claimed by a scanner, and a job of another order
    await create({ id: 'tag-held', tags: ['order:11'] })
    await create({ id: 'tag-later', tags: ['order:11'], delayMs: HOUR })
    await create({ id: 'tag-other', tags: ['order:12'], delayMs: HOUR })
    const shard = api.engine.keys.locate('tag-held').shard
    const leases = new Leases(api.engine.redis, { leaseMs: 60_000, maxAttempts: 3, backoffBaseMs: 1, backoffMaxMs: 1 })
    expect((await leases.claim(shard, await leases.seedHints(shard, 64), 10)).jobs.map((j) => j.id)).toContain(
      'tag-held',
    )
    // act
    const res = await api.call(request('POST', '/jobs/run-due', { body: { tag: 'order:11' } }))
    // assess
    expect(res.statusCode).toBe(200)
    expect(bodyOf(res)).toEqual({ promoted: 1, inFlight: 1, cursor: null })
    const runAt = async (id: string) => Date.parse(bodyOf(await api.call(request('GET', `/jobs/${id}`))).runAt)
    expect(await runAt('tag-later')).toBeLessThanOrEqual(Date.now())
    expect(await runAt('tag-other')).toBeGreaterThan(Date.now() + HOUR - 10_000)
  })

  it('refuses a missing time, an unknown queue, a field it does not know and a foreign cursor, naming each', async () => {
    const before = await redisSnapshot(api.engine)
    const answers = await Promise.all(
      [
        {},
        { before: 'tomorrow' },
        { before: Date.now(), queue: 'nosuch' },
        { before: Date.now(), limit: 5 },
        { before: Date.now(), cursor: '77.0.0' },
        { tag: 'a b' },
        { tag: 'order:1', queue: 'orders' },
      ].map((body) => api.call(request('POST', '/jobs/run-due', { body }))),
    )
    expect(answers.map((a) => a.statusCode)).toEqual([400, 400, 400, 400, 400, 400, 400])
    expect(answers.map((a) => bodyOf(a).error.details[0].path)).toEqual([
      'before',
      'before',
      'queue',
      'limit',
      'cursor',
      'tag',
      'queue',
    ])
    expect(await redisSnapshot(api.engine)).toEqual(before)
  })

  it('walks a bounded share per request, and the cursor it answers leads on to the end', async () => {
    // prepare: one shard with more due buckets than one request's runs cover; 30 jobs spread over them
    const wide = testApi({ SHARDS: '1', DUE_BUCKETS: String(256 * (RUN_DUE_RUNS_PER_REQUEST + 1)) })
    try {
      for (let i = 0; i < 30; i++) {
        const body = { id: `wide-${i}`, queue: 'orders', payload: i, delayMs: HOUR }
        expect((await wide.call(request('POST', '/jobs', { body }))).statusCode).toBe(201)
      }
      const before = Date.now() + 2 * HOUR
      // act: as a client does, again with the cursor until it is null
      const first = bodyOf(await wide.call(request('POST', '/jobs/run-due', { body: { before } })))
      const second = bodyOf(
        await wide.call(request('POST', '/jobs/run-due', { body: { before, cursor: first.cursor } })),
      )
      // assess: the first request stopped at the last bucket's run; the two moved every job once
      expect(first.cursor).toBe(`0.${256 * RUN_DUE_RUNS_PER_REQUEST}.0`)
      expect(second.cursor).toBeNull()
      expect(first.promoted + second.promoted).toBe(30)
    } finally {
      await wide.close()
    }
  })
})
