// Deleting the recurring schedules with a tag (DelayQueue.deleteSchedulesByTag, src/store/schedule-tag-delete.ts):
// each as deleteSchedule deletes one (its pending occurrence and its index entries go with it), on every shard, the
// schedules and jobs of other tags left alone; resumable when its time budget runs out; an index entry whose schedule
// is gone is passed over. Runs on one redis-server and on the Cluster (several shards).
import { describe, expect, it } from 'vitest'
import { ValidationError } from '../../src/errors'
import { scheduleTagCount } from '../../src/store/schedule-tag-delete'
import { tagCount } from '../../src/store/tag-index'
import { job, testStore } from '../support/engine'
import { occurrencesOf, testQueue } from '../support/schedules'

const HOUR = 3_600_000
const every = { queue: 'orders', payload: 1, everyMs: HOUR }

type TestStore = ReturnType<typeof testStore>
/** Over every shard: schedules the schedule tag index holds under `tag`, and jobs the job tag index holds. */
async function counts(t: TestStore, tag: string) {
  let schedules = 0
  let jobs = 0
  for (const shard of t.keys.shards) {
    schedules += await scheduleTagCount(t.redis, shard, tag)
    jobs += await tagCount(t.redis, shard, tag)
  }
  return { schedules, jobs }
}

describe('delete the recurring schedules with a tag', () => {
  it('deletes each with its pending occurrence on every shard, and leaves other tags and tagged jobs', async () => {
    // prepare: five schedules of order 7 (one paused), one of order 8, and a plain job of order 7, over three shards
    const t = testStore({ shards: 3 })
    const q = testQueue(t)
    const ids = ['o7-a', 'o7-b', 'o7-c', 'o7-d', 'o7-paused']
    for (const id of ids) await q.putSchedule(id, { ...every, tags: ['order:7'], paused: id === 'o7-paused' })
    await q.putSchedule('o8-a', { ...every, tags: ['order:8', 'digest'] })
    await t.store.enqueue(job({ id: 'o7-job', tags: ['order:7'], due: { delayMs: HOUR } }))
    expect(await counts(t, 'order:7')).toEqual({ schedules: 5, jobs: 5 }) // four occurrences and the job
    // act
    const result = await q.deleteSchedulesByTag('order:7')
    // assess
    expect(result).toEqual({ deleted: 5, done: true })
    for (const id of ids) {
      expect(await q.getSchedule(id)).toBeNull()
      expect(await occurrencesOf(t, id)).toEqual([])
    }
    expect(await counts(t, 'order:7')).toEqual({ schedules: 0, jobs: 1 })
    expect(await q.get('o7-job')).toMatchObject({ tags: ['order:7'] })
    expect((await q.getSchedule('o8-a'))?.tags).toEqual(['order:8', 'digest'])
    expect(await occurrencesOf(t, 'o8-a')).toHaveLength(1)
    // act: again, nothing left
    expect(await q.deleteSchedulesByTag('order:7')).toEqual({ deleted: 0, done: true })
    await t.close()
  })

  it('stops starting deletes when its budget runs out, answers done: false, and a second call deletes the rest', async () => {
    // prepare: eight schedules of one tag over three shards; a clock that jumps past the budget after the second delete
    const t = testStore({ shards: 3 })
    const q = testQueue(t)
    for (let i = 0; i < 8; i++) await q.putSchedule(`bulk-${i}`, { ...every, tags: ['bulk'] })
    let clock = 0
    const onProgress = (n: number) => {
      if (n === 2) clock = 1_000
    }
    const options = { budgetMs: 1_000, now: () => clock, onProgress }
    // act
    const first = await q.deleteSchedulesByTag('bulk', options)
    // assess: stopped early (a shard's delete under way when the clock jumped still counts)
    expect(first.done).toBe(false)
    expect(first.deleted).toBeGreaterThanOrEqual(2)
    expect(first.deleted).toBeLessThan(8)
    expect((await counts(t, 'bulk')).schedules).toBe(8 - first.deleted)
    // act: a second call, no budget
    const second = await q.deleteSchedulesByTag('bulk')
    // assess
    expect(second).toEqual({ deleted: 8 - first.deleted, done: true })
    expect((await q.listSchedules({ tag: 'bulk' })).schedules).toEqual([])
    await t.close()
  })

  it('passes over an index entry whose schedule is gone, and still deletes the one after it', async () => {
    // prepare: an entry without its schedule, written where its id lives, sorted before a real schedule's
    const t = testStore()
    const q = testQueue(t)
    await q.putSchedule('z-real', { ...every, tags: ['stale'] })
    await t.redis.zadd(t.keys.locate('a-ghost').shard.scheduleTags, 0, 'stale\na-ghost')
    // act
    const result = await q.deleteSchedulesByTag('stale')
    // assess
    expect(result).toEqual({ deleted: 1, done: true })
    expect(await q.getSchedule('z-real')).toBeNull()
    await t.close()
  })

  it('refuses a bad tag with a ValidationError naming tag, and deletes nothing', async () => {
    // prepare
    const t = testStore()
    const q = testQueue(t)
    await q.putSchedule('kept', { ...every, tags: ['keep'] })
    for (const tag of ['a b', '', 'x'.repeat(65), 'line\nbreak']) {
      // act
      const error = await q.deleteSchedulesByTag(tag).catch((e) => e)
      // assess
      expect(error).toBeInstanceOf(ValidationError)
      expect(error.details).toEqual([{ path: 'tag', message: expect.stringContaining('1-64 characters') }])
    }
    expect(await q.getSchedule('kept')).not.toBeNull()
    await t.close()
  })
})
