// Property: no value of a time field (schedules: startAt, endAt, everyMs, cron with startAt; jobs: runAt, delayMs)
// makes the API answer 5xx at any step of a schedule's or job's life, and none leaves an orphan job behind: once
// every schedule and job of a run is deleted, nothing is pending. Values cluster where things used to break: the
// documented bounds, 1e14 (Lua's exponent form), 8.64e15 (the end of JavaScript dates), 2^53 - 1.
import fc from 'fast-check'
import { afterAll, describe, expect, it } from 'vitest'
import type { ApiResponse } from '../../src/api/response'
import { MAX_EVERY_MS, MAX_SCHEDULE_TIME_MS } from '../../src/recurrence/time-bounds'
import { pick } from '../faults/scale'
import { bodyOf, request, testApi } from './api-helpers'

const RUNS = pick(1_000, 10_000)
const api = testApi()
afterAll(() => api.close())

const now = Date.now()
const around = (at: number, spread: number) => fc.integer({ min: at - spread, max: at + spread })
/** Epoch ms where time handling has edges, and anything else. */
const epochMs = fc.oneof(
  { arbitrary: around(MAX_SCHEDULE_TIME_MS, 2), weight: 3 },
  around(1e14, 2),
  around(8.64e15, 2),
  fc.constantFrom(Number.MAX_SAFE_INTEGER, 0, -1, 1.5, 1e21, -0),
  { arbitrary: around(now, 3_600_000), weight: 3 },
  around(now + 400 * 86_400_000, 2),
  fc.integer({ min: 0, max: MAX_SCHEDULE_TIME_MS }),
  fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER }),
)
const timeValue = fc.oneof(
  epochMs,
  epochMs.filter((ms) => Math.abs(ms) <= 8.64e15).map((ms) => new Date(ms).toISOString()),
  fc.constantFrom(
    '2999-12-31T23:59:59.999Z',
    '3000-01-01T00:00:00Z',
    '9999-12-31T23:59:59Z',
    '+275760-09-13T00:00:00Z',
  ),
)
const everyMs = fc.oneof(
  { arbitrary: around(MAX_EVERY_MS, 2), weight: 2 },
  fc.constantFrom(1000, 999, Number.MAX_SAFE_INTEGER, 1e15, 1000.5),
  fc.integer({ min: 1000, max: MAX_EVERY_MS }),
  fc.integer({ min: 1000, max: Number.MAX_SAFE_INTEGER }),
)
const rule = fc.oneof(
  everyMs.map((ms) => ({ everyMs: ms })),
  fc.constantFrom('0 9 * * *', '0 0 1 1 *', '*/5 * * * * *', '0 0 29 2 *').map((cron) => ({ cron })),
)
const scheduleBody = fc.record(
  { rule, startAt: timeValue, endAt: timeValue, paused: fc.boolean() },
  { requiredKeys: ['rule'] },
)
const jobTime = fc.oneof(
  timeValue.map((runAt) => ({ runAt })),
  epochMs.map((delayMs) => ({ delayMs })),
)

const calls: { statusCode: number; step: string }[] = []
async function call(step: string, method: string, path: string, body?: unknown, query?: Record<string, string>) {
  const response: ApiResponse = await api.call(
    request(method, path, { ...(body === undefined ? {} : { body }), query }),
  )
  calls.push({ statusCode: response.statusCode, step })
  if (response.statusCode >= 500) throw new Error(`${step} answered ${response.statusCode}: ${response.body}`)
  return response
}

async function pendingTotal(): Promise<number> {
  const stats = bodyOf(await call('stats', 'GET', '/stats'))
  return Object.values(stats.queues as Record<string, { pending: number }>).reduce((n, q) => n + q.pending, 0)
}

describe('time fields under fuzzing', () => {
  it(`no accepted time makes a 5xx or an orphan job (${RUNS} runs)`, async () => {
    let run = 0
    let accepted = 0
    await fc.assert(
      fc.asyncProperty(scheduleBody, scheduleBody, jobTime, async (first, second, job) => {
        const id = `fz-${run++}`
        const body = (b: typeof first) => ({ queue: 'orders', payload: { id }, ...b.rule, ...b, rule: undefined })
        // a schedule's life: create, read, list, replace, pause, resume, look its occurrence up, delete
        const put = await call('put', 'PUT', `/schedules/${id}`, body(first))
        if (put.statusCode < 300) {
          accepted++
          await call('get', 'GET', `/schedules/${id}`)
          expect((await call('list', 'GET', '/schedules', undefined, { limit: '100' })).statusCode).toBe(200)
          await call('replace', 'PUT', `/schedules/${id}`, body(second))
          await call('pause', 'POST', `/schedules/${id}/pause`)
          const resumed = bodyOf(await call('resume', 'POST', `/schedules/${id}/resume`))
          if (resumed.nextRunAt) await call('occurrence', 'GET', `/jobs/${id}@${Date.parse(resumed.nextRunAt)}`)
          expect((await call('delete', 'DELETE', `/schedules/${id}`)).statusCode).toBe(204)
        }
        // a job's life: create, read, cancel
        const created = await call('job', 'POST', '/jobs', { queue: 'orders', payload: 1, id: `${id}-job`, ...job })
        if (created.statusCode < 300) {
          expect((await call('job-get', 'GET', `/jobs/${id}-job`)).statusCode).toBe(200)
          expect((await call('job-cancel', 'DELETE', `/jobs/${id}-job`)).statusCode).toBe(204)
        }
        expect(await pendingTotal()).toBe(0)
      }),
      { numRuns: RUNS },
    )
    // the search did reach both sides of the bounds
    expect(accepted).toBeGreaterThan(RUNS / 10)
    expect(calls.filter((c) => c.step === 'put' && c.statusCode === 400).length).toBeGreaterThan(RUNS / 10)
  }, 120_000)
})
