// Delete every recurring schedule with a tag (DELETE /schedules?tag=, DelayQueue.deleteSchedulesByTag): on each shard
// at once, each schedule by one run of lua/schedule-delete.lua, exactly as DELETE /schedules/{id} deletes it (its
// pending occurrence goes with it; one a scanner holds right now goes out, but its ack creates no next one). A step is
// one schedule, so Redis is never held longer than one delete takes, however many schedules hold the tag.
//
// Resumable without a cursor: a deleted schedule leaves the shard's schedule tag index (the script removes its
// entries), so a delete that stopped (its time budget, a lost connection) and is called again goes on with what is
// left. Within one call the walk moves past each id it tried, so an entry whose schedule is gone already is passed
// over, not tried forever. A schedule given the tag while the delete runs is deleted if its id comes after the one
// under way on its shard.
import type { Keyspace, ShardKeys } from './keys'
import { rideOut } from './redis/ride-out'
import type { ReplicationOptions } from './redis/replication'
import { writeScript } from './redis/write'
import type { RedisClient, ScriptedClient } from './scripts'
import { decodeScheduleDelete, scheduleDeleteCall } from './scripts/schedule-delete'
import { idsUnderTag } from './tag-index'

/** Ids read from a shard's schedule tag index at a time. */
export const SCHEDULE_TAG_READ = 100

export interface ScheduleTagDeleteResult {
  /** Schedules deleted by this call: no occurrence of any of them is created after the answer. */
  deleted: number
  /** false: the time budget ran out first; the schedules left keep the tag, and a second call goes on with them. */
  done: boolean
}

export interface ScheduleTagDeleteOptions {
  /** Stop starting deletes after this long (ms); the answer then says done: false. Default: no limit. */
  budgetMs?: number
  /** Called after each delete with the count so far. */
  onProgress?: (deleted: number) => void
  /** The clock the budget is measured on (tests pass a fake one). Default Date.now. */
  now?: () => number
}

/** How many schedules hold `tag` on `shard` (ZLEXCOUNT of its schedule tag index). */
export function scheduleTagCount(redis: RedisClient, shard: ShardKeys, tag: string): Promise<number> {
  return redis.zlexcount(shard.scheduleTags, `[${tag}\n`, `(${tag}\v`)
}

export async function deleteSchedulesByTag(
  redis: ScriptedClient,
  keys: Keyspace,
  replication: ReplicationOptions,
  tag: string,
  options: ScheduleTagDeleteOptions = {},
): Promise<ScheduleTagDeleteResult> {
  const now = options.now ?? Date.now
  const stopAt = options.budgetMs === undefined ? Infinity : now() + options.budgetMs
  let deleted = 0
  let done = true
  await Promise.all(
    keys.shards.map(async (shard) => {
      let after: string | null = null
      for (;;) {
        const ids = await rideOut(redis, () => idsUnderTag(redis, shard.scheduleTags, tag, after, SCHEDULE_TAG_READ))
        if (ids.length === 0) return
        for (const id of ids) {
          if (now() >= stopAt) {
            done = false
            return
          }
          // The schedule lives where its id places it: the shard whose index named it.
          const at = keys.locate(id)
          const { reply, unconfirmed } = await writeScript(redis, replication, at.shard, scheduleDeleteCall(at, id))
          // Deleted on a primary whose replicas did not confirm it: a failover could bring the schedule back.
          if (unconfirmed) throw unconfirmed
          if (decodeScheduleDelete(reply)) {
            deleted += 1
            options.onProgress?.(deleted)
          }
          after = id
        }
      }
    }),
  )
  return { deleted, done }
}
