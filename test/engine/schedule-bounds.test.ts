// The largest times and periods the API accepts go through every script that stores or reads them (schedule put,
// replace, pause, resume, ack, release and delete; job enqueue, reschedule, lookup and cancel) and come out as plain
// integers: no exponent form in a stored record or an occurrence id, no 500, nothing left behind.
import { describe, expect, it } from 'vitest'
import { DelayQueue } from '../../src/direct/delay-queue'
import type { Config } from '../../src/config'
import { ValidationError } from '../../src/errors'
import { Leases } from '../../src/scan/claims/leases'
import { MAX_EVERY_MS, MAX_SCHEDULE_TIME_ISO, MAX_SCHEDULE_TIME_MS } from '../../src/recurrence/time-bounds'
import { scheduleAckCall } from '../../src/store/scripts/schedule-ack'
import { runScript } from '../../src/store/scripts'
import { testStore } from '../support/engine'
import { eventually } from '../support/eventually'
import { pendingCount } from '../support/scanner'
import { occurrencesOf } from '../support/schedules'

const LONGEST_HORIZON_MS = 100 * 365 * 86_400_000 // MAX_HORIZON_DAYS at its largest

function stage() {
  const t = testStore({ shards: 1 })
  const queues: Record<string, string> = { orders: 'http://127.0.0.1:9/q/orders' }
  const config = { queues, maxMessageBytes: 262_144, maxHorizonMs: LONGEST_HORIZON_MS } as Config
  const q = new DelayQueue({ config, store: t.store })
  const shard = t.keys.shards[0]!
  /** Every stored schedule record and job id: none may hold a number in exponent form. */
  const stored = async () => [
    ...Object.values(await t.redis.hgetall(shard.schedules)),
    ...(await t.redis.hkeys(shard.jobs)),
    ...(await t.redis.zrange(shard.index, '0', '-1', 'WITHSCORES')),
  ]
  /** Removes what the test made (schedules, then jobs), asserts nothing is pending or stored any more, and closes. */
  const removeAndExpectNothingLeft = async (made: { schedules?: string[]; jobs?: string[] }) => {
    for (const id of made.schedules ?? []) await q.deleteSchedule(id)
    for (const id of made.jobs ?? []) await q.cancel(id)
    expect(await pendingCount(t.store)).toBe(0)
    expect(await stored()).toEqual([])
    await t.close()
  }
  return { t, q, shard, stored, removeAndExpectNothingLeft }
}

const exponent = /\d[eE][+-]?\d/

describe('the largest accepted times through every script', () => {
  it('a schedule at the time bound with the longest period: put, read, list, replace, pause, resume, delete', async () => {
    const { t, q, stored, removeAndExpectNothingLeft } = stage()
    // act
    const created = await q.putSchedule('far', {
      queue: 'orders',
      payload: 1,
      everyMs: MAX_EVERY_MS,
      startAt: MAX_SCHEDULE_TIME_MS,
      endAt: MAX_SCHEDULE_TIME_ISO,
    })
    const cron = await q.putSchedule('far-cron', {
      queue: 'orders',
      payload: 1,
      cron: '59 23 31 12 *',
      startAt: MAX_SCHEDULE_TIME_MS - 60_000,
    })
    const records = await stored()
    const listed = await q.listSchedules({ limit: 10 })
    const replaced = await q.putSchedule('far', {
      queue: 'orders',
      payload: 2,
      everyMs: MAX_EVERY_MS,
      startAt: MAX_SCHEDULE_TIME_MS,
    })
    const paused = await q.pauseSchedule('far')
    const resumed = await q.pauseSchedule('far', false)
    const occurrence = await q.get(`far@${MAX_SCHEDULE_TIME_MS}`)
    // assess
    expect(created.nextRunAt).toBe(MAX_SCHEDULE_TIME_ISO)
    expect(cron.nextRunAt).toBe('2999-12-31T23:59:00.000Z')
    expect(records.filter((r) => exponent.test(r))).toEqual([])
    expect(await occurrencesOf(t, 'far')).toEqual([`far@${MAX_SCHEDULE_TIME_MS}`])
    expect(listed.schedules.map((s) => s.nextRunAt)).toEqual([MAX_SCHEDULE_TIME_ISO, '2999-12-31T23:59:00.000Z'])
    expect([replaced.nextRunAt, paused.nextRunAt, resumed.nextRunAt]).toEqual([
      MAX_SCHEDULE_TIME_ISO,
      null,
      MAX_SCHEDULE_TIME_ISO,
    ])
    expect(occurrence).toMatchObject({ runAt: MAX_SCHEDULE_TIME_ISO, payload: 2 })
    // act: delete leaves nothing
    await removeAndExpectNothingLeft({ schedules: ['far', 'far-cron'] })
  })

  it('one step past any bound is a 400 naming the field, and stores nothing', async () => {
    const { t, q, stored } = stage()
    const pathsOf = (input: Record<string, unknown>) =>
      q.putSchedule('x', { queue: 'orders', payload: 1, ...input }).then(
        () => 'accepted',
        (e) => (e instanceof ValidationError ? e.details.map((d) => d.path) : e),
      )
    // act
    const paths = [
      await pathsOf({ everyMs: 1000, startAt: MAX_SCHEDULE_TIME_MS + 1 }),
      await pathsOf({ everyMs: 1000, endAt: '3000-01-01T00:00:00Z' }),
      await pathsOf({ everyMs: MAX_EVERY_MS + 1 }),
      await pathsOf({ cron: '0 0 1 1 *', startAt: MAX_SCHEDULE_TIME_MS - 1000 }), // its first run would be past it
    ]
    // assess
    expect(paths).toEqual([['startAt'], ['endAt'], ['everyMs'], ['startAt']])
    expect(await stored()).toEqual([])
    await t.close()
  })

  it('an occurrence acknowledged with a successor at the time bound, and a release of a due one', async () => {
    // prepare: a due occurrence, claimed
    const { t, q, shard, stored, removeAndExpectNothingLeft } = stage()
    // prepare: a due occurrence of each, claimed. A put that lands after `start` (a loaded machine: start is 100 ms
    // ahead at least) has its first occurrence a period later, so the claim waits for the ones the answers name
    const start = Math.ceil((Date.now() + 100) / 1000) * 1000
    const putEdge = await q.putSchedule('edge', { queue: 'orders', payload: 1, everyMs: 1000, startAt: start })
    const putRefused = await q.putSchedule('edge-refused', {
      queue: 'orders',
      payload: 1,
      everyMs: 1000,
      startAt: start,
    })
    const edgeAt = Date.parse(putEdge.nextRunAt!)
    const refusedAt = Date.parse(putRefused.nextRunAt!)
    const leases = new Leases(t.redis, { leaseMs: 30_000, maxAttempts: 1, backoffBaseMs: 1, backoffMaxMs: 1 }, t.keys)
    await eventually(async () => Date.now() >= Math.max(edgeAt, refusedAt))
    const claimed = await leases.claim(shard, await leases.seedHints(shard, 10), 10)
    expect(claimed.jobs.map((j) => j.id).sort()).toEqual([`edge-refused@${refusedAt}`, `edge@${edgeAt}`])
    const edge = claimed.jobs.find((j) => j.id === `edge@${edgeAt}`)!
    // act: the ack names the bound as the next occurrence (what nextOccurrence can return at most)
    const acked = await runScript(
      t.redis,
      scheduleAckCall(shard, [
        {
          id: edge.id,
          token: edge.token,
          scheduleId: 'edge',
          atMs: edgeAt,
          version: 1, // created once
          nextAfterIt: MAX_SCHEDULE_TIME_MS,
          nextAfterNow: MAX_SCHEDULE_TIME_MS,
          bucketNo: t.keys.locate('edge').bucketNo,
        },
      ]),
    )
    const released = await leases.release(
      shard,
      claimed.jobs.filter((j) => j.id !== edge.id).map((j) => ({ id: j.id, token: j.token, error: 'refused' })),
    )
    // assess
    expect(acked).toBe(1)
    expect(released).toMatchObject({ released: 0, dead: 1, retired: 0 })
    expect(await occurrencesOf(t, 'edge')).toEqual([`edge@${MAX_SCHEDULE_TIME_MS}`])
    expect(await q.getSchedule('edge')).toMatchObject({ nextRunAt: MAX_SCHEDULE_TIME_ISO, runs: 1 })
    expect((await stored()).filter((r) => exponent.test(r))).toEqual([])
    await removeAndExpectNothingLeft({ schedules: ['edge', 'edge-refused'] })
  })

  it('a job at the longest horizon: enqueue, look up, reschedule, cancel', async () => {
    const { q, stored, removeAndExpectNothingLeft } = stage()
    // act
    const byDelay = await q.schedule({ id: 'by-delay', queue: 'orders', payload: 1, delayMs: LONGEST_HORIZON_MS })
    const byTime = await q.schedule({
      id: 'by-time',
      queue: 'orders',
      payload: 1,
      runAt: Date.now() + LONGEST_HORIZON_MS - 60_000,
    })
    const moved = await q.reschedule('by-time', { queue: 'orders', payload: 2, delayMs: LONGEST_HORIZON_MS })
    const records = await stored()
    const looked = await q.get('by-delay')
    // assess
    expect(records.filter((r) => exponent.test(r))).toEqual([])
    expect(Date.parse(looked!.runAt)).toBe(Date.parse(byDelay.runAt))
    expect(Date.parse(moved.runAt)).toBeGreaterThan(Date.parse(byTime.runAt))
    await expect(q.schedule({ queue: 'orders', payload: 1, delayMs: LONGEST_HORIZON_MS + 1 })).rejects.toThrow(
      ValidationError,
    )
    await removeAndExpectNothingLeft({ jobs: ['by-delay', 'by-time'] })
  })
})
