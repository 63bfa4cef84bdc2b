// What the dashboard reads from Redis (one server, and Redis Cluster with several shards): counts per queue with
// in-flight jobs split off, scheduled jobs by horizon, and the dead set.
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { OverviewReader } from '../../src/ops/dashboard/overview'
import { Leases } from '../../src/scan/claims/leases'
import { job, testStore } from '../support/engine'
import { testQueue } from '../support/schedules'

// Each case its own keyspace: the overview counts and lists everything in it, so what a failing case left behind
// would show in the next case's figures.
let t: ReturnType<typeof testStore>
let leases: Leases
let reader: OverviewReader
beforeEach(() => {
  t = testStore({ buckets: 16 })
  leases = new Leases(t.redis, { leaseMs: 60_000, maxAttempts: 1, backoffBaseMs: 1, backoffMaxMs: 1 })
  reader = new OverviewReader(t.redis, t.keys, t.store)
})
afterEach(() => t.close())

const MIN = 60_000
const HOUR = 60 * MIN
const DAY = 24 * HOUR

describe('dashboard overview', () => {
  it('counts jobs per queue and horizon, with claimed and dead jobs apart', async () => {
    // prepare: two orders jobs claimed by a scanner (in flight) and an emails job SQS refused (dead) ...
    for (const id of ['ov-claimed-0', 'ov-claimed-1']) await t.store.enqueue(job({ id, due: { delayMs: 0 } }))
    await t.store.enqueue(job({ id: 'ov-mail', queue: 'emails', due: { delayMs: 0 } }))
    for (const shard of t.keys.shards) {
      const { jobs } = await leases.claim(shard, await leases.seedHints(shard, 50), 50)
      const refused = jobs.filter((j) => j.queue === 'emails').map((j) => ({ ...j, error: 'refused <b>x</b>' }))
      if (refused.length) await leases.release(shard, refused)
    }
    // ... then orders jobs due now (2), in 30 s, 30 min, 12 h, 20 days and 100 days
    const delays = [0, 0, 30_000, 30 * MIN, 12 * HOUR, 20 * DAY, 100 * DAY]
    for (const [i, delayMs] of delays.entries()) await t.store.enqueue(job({ id: `ov-${i}`, due: { delayMs } }))
    // act
    const o = await reader.read()
    // assess
    expect(o.queues.orders).toEqual({ pending: 7, inFlight: 2, dead: 0, dispatched: 0 })
    expect(o.queues.emails).toEqual({ pending: 0, inFlight: 0, dead: 1, dispatched: 0 })
    expect(o.timeline).toEqual({ overdue: 2, minute: 3, hour: 4, day: 5, month: 6, all: 7 })
    expect(o.dead).toEqual([
      expect.objectContaining({
        id: 'ov-mail',
        queue: 'emails',
        lastError: expect.objectContaining({ message: 'refused <b>x</b>' }),
      }),
    ])
  })

  it('lists recurring schedules with their rule, time zone, next and last run, runs and paused state', async () => {
    // prepare
    const q = testQueue(t)
    const daily = await q.putSchedule('ov-daily', {
      queue: 'orders',
      payload: 1,
      cron: '0 9 * * *',
      timezone: 'Europe/Berlin',
    })
    await q.putSchedule('ov-paused', { queue: 'orders', payload: 1, everyMs: 60_000, paused: true })
    // act
    const o = await reader.read()
    // assess
    expect(o.schedules).toEqual([
      {
        id: 'ov-daily',
        queue: 'orders',
        cron: '0 9 * * *',
        timezone: 'Europe/Berlin',
        paused: false,
        nextRunAt: daily.nextRunAt,
        lastRunAt: null,
        runs: 0,
      },
      {
        id: 'ov-paused',
        queue: 'orders',
        everyMs: 60_000,
        timezone: 'UTC',
        paused: true,
        nextRunAt: null,
        lastRunAt: null,
        runs: 0,
      },
    ])
  })

  it('shows a configured queue that has no jobs yet with zeros, as /stats does', async () => {
    // prepare: one configured queue used and one idle
    await t.store.enqueue(job({ id: 'ov-used', queue: 'orders', due: { delayMs: HOUR } }))
    const configured = new OverviewReader(t.redis, t.keys, t.store, ['orders', 'idle'])
    // act
    const o = await configured.read()
    // assess
    expect(o.queues).toEqual({
      orders: { pending: 1, inFlight: 0, dead: 0, dispatched: 0 },
      idle: { pending: 0, inFlight: 0, dead: 0, dispatched: 0 },
    })
  })
})
