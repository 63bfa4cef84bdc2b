// Tags on recurring schedules: each occurrence carries its schedule's tags, so a tag lists the pending occurrences;
// the index follows the series (ack, replace, delete); a cancel by tag leaves a pending occurrence in place and says
// so, because removing it would end the series (only an occurrence's ack creates the next one).
import { describe, expect, it } from 'vitest'
import { Leases } from '../../src/scan/claims/leases'
import { cancelByTag } from '../../src/store/tag-cancel'
import { tagCount } from '../../src/store/tag-index'
import { readTagPage } from '../../src/store/tag-page'
import { job, testStore } from '../support/engine'
import { eventually } from '../support/eventually'
import { occurrencesOf, testQueue } from '../support/schedules'

const HOUR = 3_600_000
const noReplicas = { replicas: 0, timeoutMs: 1_000 }

type TestStore = ReturnType<typeof testStore>
/** Jobs the index holds under these tags, over every shard. */
async function indexed(t: TestStore, ...tags: string[]) {
  let n = 0
  for (const shard of t.keys.shards) for (const tag of tags) n += await tagCount(t.redis, shard, tag)
  return n
}
const tagged = async (t: TestStore, tag: string) =>
  (await readTagPage(t.store, tag, { limit: 10, cursor: null })).jobs.map((j) => j.id)

describe('tags on recurring schedules', () => {
  it('gives each occurrence the schedule tags, listed by tag, moved by a replace and gone with a delete', async () => {
    // prepare
    const t = testStore()
    const q = testQueue(t)
    // act
    const s = await q.putSchedule('nudge', { queue: 'orders', payload: 1, everyMs: HOUR, tags: ['user:7', 'nudges'] })
    // assess
    const id = `nudge@${Date.parse(s.nextRunAt!)}`
    expect(s.tags).toEqual(['user:7', 'nudges'])
    expect((await q.getSchedule('nudge'))?.tags).toEqual(['user:7', 'nudges'])
    expect(await tagged(t, 'user:7')).toEqual([id])
    expect((await q.get(id))?.tags).toEqual(['user:7', 'nudges'])
    // act: replaced with other tags (the pending occurrence is placed again)
    const r = await q.putSchedule('nudge', { queue: 'orders', payload: 2, everyMs: HOUR, tags: ['user:8'] })
    // assess
    expect(await tagged(t, 'user:7')).toEqual([])
    expect(await tagged(t, 'user:8')).toEqual([`nudge@${Date.parse(r.nextRunAt!)}`])
    // act: deleted
    await q.deleteSchedule('nudge')
    // assess
    expect(await indexed(t, 'user:7', 'user:8', 'nudges')).toBe(0)
    await t.close()
  })

  it('lists the schedules with a tag in id order over every shard, page by page, and follows a replace and a delete', async () => {
    // prepare: 5 schedules of user 3 (one of them paused: no occurrence), one of user 4
    const t = testStore()
    const q = testQueue(t)
    const every = { queue: 'orders', payload: 1, everyMs: HOUR }
    for (const id of ['u3-a', 'u3-b', 'u3-c', 'u3-d']) await q.putSchedule(id, { ...every, tags: ['user:3'] })
    await q.putSchedule('u3-paused', { ...every, tags: ['user:3', 'digest'], paused: true })
    await q.putSchedule('u4-a', { ...every, tags: ['user:4'] })
    const ids = (p: { schedules: { id: string }[] }) => p.schedules.map((s) => s.id)
    // act
    const first = await q.listSchedules({ tag: 'user:3', limit: 3 })
    const second = await q.listSchedules({ tag: 'user:3', limit: 3, cursor: first.cursor })
    // assess
    expect(ids(first)).toEqual(['u3-a', 'u3-b', 'u3-c'])
    expect(ids(second)).toEqual(['u3-d', 'u3-paused'])
    expect(second.cursor).toBeNull()
    expect(second.schedules[1]).toMatchObject({ paused: true, tags: ['user:3', 'digest'] })
    // act: one replaced without the tag, one deleted
    await q.putSchedule('u3-a', { ...every, tags: ['user:4'] })
    await q.deleteSchedule('u3-b')
    // assess
    expect(ids(await q.listSchedules({ tag: 'user:3' }))).toEqual(['u3-c', 'u3-d', 'u3-paused'])
    expect(ids(await q.listSchedules({ tag: 'user:4' }))).toEqual(['u3-a', 'u4-a'])
    let entries = 0 // the deleted schedule's entry went with it (a list would skip it, but it would stay)
    for (const shard of t.keys.shards) entries += await t.redis.zlexcount(shard.scheduleTags, '[user:3\n', '(user:3\v')
    expect(entries).toBe(3)
    await expect(q.listSchedules({ tag: 'a b' })).rejects.toThrow(/1-64 characters/)
    await t.close()
  })

  it('refuses a bad tag on a schedule with a 400-style error naming the field, and stores nothing', async () => {
    const t = testStore()
    const q = testQueue(t)
    const error = await q
      .putSchedule('bad', { queue: 'orders', payload: 1, everyMs: HOUR, tags: ['no spaces'] })
      .catch((e) => e)
    expect(error.details).toEqual([{ path: 'tags.0', message: expect.stringContaining('1-64 characters') }])
    expect(await q.getSchedule('bad')).toBeNull()
    await t.close()
  })

  it('hands the tags on at each ack: the acked occurrence leaves the index, its successor enters it', async () => {
    // prepare: a schedule every second, its first occurrence due and claimed as a scanner would
    const t = testStore({ shards: 1 })
    const q = testQueue(t)
    const start = Math.ceil((Date.now() + 100) / 1000) * 1000
    await q.putSchedule('tick', { queue: 'orders', payload: 1, everyMs: 1000, startAt: start, tags: ['ticks'] })
    const leases = new Leases(t.redis, { leaseMs: 30_000, maxAttempts: 3, backoffBaseMs: 1, backoffMaxMs: 1 }, t.keys)
    const shard = t.keys.shards[0]!
    await eventually(async () => Date.now() >= start)
    const claimed = await leases.claim(shard, await leases.seedHints(shard, 10), 10)
    expect(claimed.jobs.map((j) => j.id)).toEqual([`tick@${start}`])
    // act
    await leases.ack(shard, claimed.jobs)
    // assess
    const next = (await occurrencesOf(t, 'tick'))[0]!
    expect(next).not.toBe(`tick@${start}`)
    expect(await tagged(t, 'ticks')).toEqual([next])
    expect(await indexed(t, 'ticks')).toBe(1)
    await t.close()
  })

  it('forgets the entries of an occurrence retired after a replace (refused by SQS, its schedule moved on)', async () => {
    // prepare: the first occurrence claimed, then the schedule replaced with another tag while it is being sent
    const t = testStore({ shards: 1 })
    const q = testQueue(t)
    const start = Math.ceil((Date.now() + 100) / 1000) * 1000
    await q.putSchedule('swap', { queue: 'orders', payload: 1, everyMs: 1000, startAt: start, tags: ['old'] })
    const leases = new Leases(t.redis, { leaseMs: 30_000, maxAttempts: 3, backoffBaseMs: 1, backoffMaxMs: 1 }, t.keys)
    const shard = t.keys.shards[0]!
    await eventually(async () => Date.now() >= start)
    const claimed = await leases.claim(shard, await leases.seedHints(shard, 10), 10)
    await q.putSchedule('swap', { queue: 'orders', payload: 2, everyMs: HOUR, tags: ['new'] })
    // act: SQS refuses the old occurrence
    const released = await leases.release(
      shard,
      claimed.jobs.map((j) => ({ id: j.id, token: j.token, error: 'refused' })),
    )
    // assess
    expect(released.retired).toBe(1)
    expect(await indexed(t, 'old')).toBe(0)
    expect(await indexed(t, 'new')).toBe(1)
    await t.close()
  })

  it('cancel by tag cancels the jobs but leaves a pending occurrence, counted as recurring: the series goes on', async () => {
    // prepare: two jobs and a schedule of one order
    const t = testStore()
    const q = testQueue(t)
    await t.store.enqueue(job({ id: 'o-pay', tags: ['order:5'], due: { delayMs: 60_000 } }))
    await t.store.enqueue(job({ id: 'o-ship', tags: ['order:5'], due: { delayMs: 60_000 } }))
    const s = await q.putSchedule('o-remind', { queue: 'orders', payload: 1, everyMs: HOUR, tags: ['order:5'] })
    const occurrence = `o-remind@${Date.parse(s.nextRunAt!)}`
    // act
    const result = await cancelByTag(t.redis, t.keys, noReplicas, 'order:5', { stepJobs: 2 })
    // assess
    expect(result).toEqual({ cancelled: 2, inFlight: 0, recurring: 1, done: true })
    expect(await occurrencesOf(t, 'o-remind')).toEqual([occurrence])
    expect(await tagged(t, 'order:5')).toEqual([occurrence])
    // act: the schedule deleted, as the answer tells; a second cancel finds nothing
    await q.deleteSchedule('o-remind')
    expect(await cancelByTag(t.redis, t.keys, noReplicas, 'order:5')).toEqual({
      cancelled: 0,
      inFlight: 0,
      recurring: 0,
      done: true,
    })
    expect(await indexed(t, 'order:5')).toBe(0)
    await t.close()
  })
})
