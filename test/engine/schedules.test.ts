// Recurring schedules in the store: create, replace, pause, delete and list, and what each leaves pending.
import { sleep } from '../../devkit/sleep'
import { describe, expect, it } from 'vitest'
import { OccurrenceOfScheduleError, ScheduleNotFoundError } from '../../src/errors'
import { DeadSet } from '../../src/ops/dead-set'
import { Leases } from '../../src/scan/claims/leases'
import type { ClaimedJob } from '../../src/scan/claims/claimed-job'
import { testStore } from '../support/engine'
import { eventually } from '../support/eventually'
import { pendingCount } from '../support/scanner'
import { occurrencesOf, testQueue } from '../support/schedules'

const HOUR = 3_600_000
/** The claimed jobs as a send that timed out hands them back: maybe in SQS, not the jobs' fault. */
const timedOut = (jobs: ClaimedJob[]) =>
  jobs.map((j) => ({ ...j, error: 'timed out', jobsFault: false, maybeSent: true }))

/**
 * A one-shard store and its queue, with schedules `ids` firing every second from the next whole second: waits for
 * their first occurrences and claims them as a scanner would, with leases that give up after `maxAttempts`.
 */
async function claimedFirstOccurrences(ids: string[], maxAttempts: number) {
  const t = testStore({ shards: 1 })
  const q = testQueue(t)
  const start = Math.ceil((Date.now() + 100) / 1000) * 1000
  for (const id of ids) await q.putSchedule(id, { queue: 'orders', payload: 1, everyMs: 1000, startAt: start })
  const leases = new Leases(t.redis, { leaseMs: 30_000, maxAttempts, backoffBaseMs: 1, backoffMaxMs: 1 }, t.keys)
  const shard = t.keys.shards[0]!
  await eventually(async () => Date.now() >= start)
  const claimed = await leases.claim(shard, await leases.seedHints(shard, 10), 10)
  return { t, q, leases, shard, start, claimed }
}

describe('recurring schedules (store)', () => {
  it('makes the next occurrence a pending job as soon as the schedule exists', async () => {
    // prepare
    const t = testStore()
    const q = testQueue(t)
    // act
    const before = Date.now()
    const created = await q.putSchedule('hourly', { queue: 'orders', payload: { report: 1 }, everyMs: HOUR })
    // assess
    expect(created).toMatchObject({
      id: 'hourly',
      created: true,
      everyMs: HOUR,
      timezone: 'UTC',
      paused: false,
      runs: 0,
    })
    const next = Date.parse(created.nextRunAt!)
    expect(next).toBeGreaterThanOrEqual(before + HOUR - 1_000)
    expect(await occurrencesOf(t, 'hourly')).toEqual([`hourly@${next}`])
    expect(await q.get(`hourly@${next}`)).toMatchObject({
      queue: 'orders',
      payload: { report: 1 },
      status: 'scheduled',
    })
    const { created: _, ...view } = created
    expect(await q.getSchedule('hourly')).toEqual(view)
    await t.close()
  })

  it('replace moves the pending occurrence to the new rule, keeping one', async () => {
    // prepare
    const t = testStore()
    const q = testQueue(t)
    const first = await q.putSchedule('moving', { queue: 'orders', payload: 1, everyMs: HOUR })
    // act
    const replaced = await q.putSchedule('moving', {
      queue: 'orders',
      payload: 2,
      cron: '0 9 1 1 *',
      timezone: 'Europe/Berlin',
    })
    // assess: the next 1 January, 09:00 Berlin (08:00 UTC)
    expect(replaced.created).toBe(false)
    const next = new Date(replaced.nextRunAt!)
    expect([next.getUTCMonth(), next.getUTCDate(), next.getUTCHours(), next.getUTCMinutes()]).toEqual([0, 1, 8, 0])
    expect(await occurrencesOf(t, 'moving')).toEqual([`moving@${next.getTime()}`])
    expect(await q.get(`moving@${Date.parse(first.nextRunAt!)}`)).toBeNull()
    expect((await q.get(`moving@${next.getTime()}`))!.payload).toBe(2)
    expect(await pendingCount(t.store)).toBe(1)
    await t.close()
  })

  it('pause leaves nothing pending; resume schedules the next run again', async () => {
    // prepare
    const t = testStore()
    const q = testQueue(t)
    await q.putSchedule('sleepy', { queue: 'orders', payload: 1, cron: '*/5 * * * * *' })
    // act
    const paused = await q.pauseSchedule('sleepy')
    // assess
    expect(paused).toMatchObject({ paused: true, nextRunAt: null })
    expect(await occurrencesOf(t, 'sleepy')).toEqual([])
    expect(await pendingCount(t.store)).toBe(0)
    // act: resume
    const resumed = await q.pauseSchedule('sleepy', false)
    expect(resumed.paused).toBe(false)
    expect(await occurrencesOf(t, 'sleepy')).toEqual([`sleepy@${Date.parse(resumed.nextRunAt!)}`])
    await expect(q.pauseSchedule('nobody')).rejects.toBeInstanceOf(ScheduleNotFoundError)
    await t.close()
  })

  it('delete removes the schedule and its pending occurrence', async () => {
    // prepare
    const t = testStore()
    const q = testQueue(t)
    await q.putSchedule('gone', { queue: 'orders', payload: 1, everyMs: 60_000 })
    // act
    await q.deleteSchedule('gone')
    // assess
    expect(await q.getSchedule('gone')).toBeNull()
    expect(await occurrencesOf(t, 'gone')).toEqual([])
    expect(await pendingCount(t.store)).toBe(0)
    await expect(q.deleteSchedule('gone')).rejects.toBeInstanceOf(ScheduleNotFoundError)
    await t.close()
  })

  it('refuses to cancel the pending occurrence by id (the series would end), but looks it up', async () => {
    // prepare
    const t = testStore()
    const q = testQueue(t)
    const s = await q.putSchedule('keep', { queue: 'orders', payload: 1, everyMs: 60_000 })
    const id = `keep@${Date.parse(s.nextRunAt!)}`
    // act
    const error = await q.cancel(id).catch((e) => e)
    // assess
    expect(error).toBeInstanceOf(OccurrenceOfScheduleError)
    expect(error.message).toContain('schedule "keep"')
    expect(await occurrencesOf(t, 'keep')).toEqual([id])
    await t.close()
  })

  it('a replace while an occurrence is being dispatched: its ack creates nothing, the new rule stays pending', async () => {
    // prepare: the occurrence is due and a scanner holds it
    const { t, q, leases, shard, start, claimed } = await claimedFirstOccurrences(['racy'], 3)
    expect(claimed.jobs.map((j) => j.id)).toEqual([`racy@${start}`])
    // act: replaced meanwhile, then the dispatch's ack
    const replaced = await q.putSchedule('racy', { queue: 'orders', payload: 2, everyMs: HOUR })
    const acked = await leases.ack(shard, claimed.jobs)
    // assess: the old rule's successor (start + 1 s) never appears; the delivered occurrence counts as a run
    expect(acked).toBe(1)
    expect(await occurrencesOf(t, 'racy')).toEqual([`racy@${Date.parse(replaced.nextRunAt!)}`])
    expect(await q.getSchedule('racy')).toMatchObject({
      everyMs: HOUR,
      nextRunAt: replaced.nextRunAt,
      runs: 1,
      lastRunAt: new Date(start).toISOString(),
    })
    await t.close()
  })

  it('an occurrence SQS refused for good holds its series in the dead set; revived, it goes on', async () => {
    // prepare: the due occurrence is claimed and refused on its last attempt
    const { t, q, leases, shard, start, claimed: first } = await claimedFirstOccurrences(['refused'], 1)
    // act
    const released = await leases.release(
      shard,
      first.jobs.map((j) => ({ id: j.id, token: j.token, error: 'refused' })),
    )
    // assess: dead, no successor, the schedule still names it
    expect(released).toMatchObject({ released: 0, dead: 1, deadIds: [`refused@${start}`], retired: 0 })
    expect(await q.get(`refused@${start}`)).toMatchObject({ status: 'dead' })
    expect(await occurrencesOf(t, 'refused')).toEqual([`refused@${start}`])
    expect((await q.getSchedule('refused'))!.nextRunAt).toBe(new Date(start).toISOString())
    // act: an operator revives it; it is claimed and acked
    await new DeadSet(t.redis, t.keys).revive(`refused@${start}`, 0)
    const again = await leases.claim(shard, await leases.seedHints(shard, 10), 10)
    await leases.ack(shard, again.jobs)
    // assess: the series continues
    const view = (await q.getSchedule('refused'))!
    expect(view.runs).toBe(1)
    expect(await occurrencesOf(t, 'refused')).toEqual([`refused@${Date.parse(view.nextRunAt!)}`])
    await t.close()
  })

  it.each(['delete', 'pause'])(
    '%s removes an occurrence waiting to retry a send SQS may have taken: it is never sent again',
    async (operation) => {
      // prepare: the due occurrence's send timed out (maybe in SQS): it waits for its retry
      const { t, q, leases, shard, start, claimed } = await claimedFirstOccurrences(['unsure'], 10)
      const ambiguous = timedOut(claimed.jobs)
      expect(await leases.release(shard, ambiguous)).toMatchObject({ released: 1, dead: 0, retired: 0 })
      expect((await q.get(`unsure@${start}`))?.lastError).toMatchObject({ maybeSent: true })
      // act
      if (operation === 'delete') await q.deleteSchedule('unsure')
      else await q.pauseSchedule('unsure')
      // assess: nothing left to retry
      expect(await occurrencesOf(t, 'unsure')).toEqual([])
      expect(await pendingCount(t.store)).toBe(0)
      await t.close()
    },
  )

  it('a send in flight at the delete that may have reached SQS is retired when it fails, not retried', async () => {
    // prepare: a scanner holds the due occurrence
    const { t, q, leases, shard, claimed } = await claimedFirstOccurrences(['inflight'], 10)
    // act: deleted meanwhile; then the send times out (SQS may hold the message)
    await q.deleteSchedule('inflight')
    const ambiguous = timedOut(claimed.jobs)
    const released = await leases.release(shard, ambiguous)
    // assess
    expect(released).toMatchObject({ released: 0, dead: 0, retired: 1 })
    expect(await occurrencesOf(t, 'inflight')).toEqual([])
    expect(await pendingCount(t.store)).toBe(0)
    await t.close()
  })

  it('runs and lastRunAt count an occurrence delivered around a pause, not one of a deleted schedule of that id', async () => {
    // prepare: two schedules whose due occurrences a scanner holds
    const { t, q, leases, shard, start, claimed } = await claimedFirstOccurrences(['paused', 'renewed'], 3)
    // act: one paused, the other deleted and created again, while their occurrences go out; then the acks
    await q.pauseSchedule('paused')
    await q.deleteSchedule('renewed')
    await sleep(5) // a later creation time than the occurrence's
    await q.putSchedule('renewed', { queue: 'orders', payload: 1, everyMs: HOUR })
    expect(await leases.ack(shard, claimed.jobs)).toBe(2)
    // assess
    expect(await q.getSchedule('paused')).toMatchObject({ runs: 1, lastRunAt: new Date(start).toISOString() })
    expect(await q.getSchedule('renewed')).toMatchObject({ runs: 0, lastRunAt: null })
    await t.close()
  })

  it('lists every schedule once, in id order, page by page across shards', async () => {
    // prepare
    const t = testStore({ shards: 3 })
    const q = testQueue(t)
    const ids = Array.from({ length: 23 }, (_, i) => `list-${String(i).padStart(2, '0')}`)
    for (const id of ids) await q.putSchedule(id, { queue: 'orders', payload: id, everyMs: HOUR })
    // act
    const seen: string[] = []
    let cursor: string | null = null
    let pages = 0
    do {
      const page = await q.listSchedules({ cursor, limit: 10 })
      seen.push(...page.schedules.map((s) => s.id))
      cursor = page.cursor
      pages++
    } while (cursor)
    // assess
    expect(seen).toEqual(ids)
    expect(pages).toBe(3)
    await t.close()
  })
})
