// Cancel every job with a tag (DELETE /jobs?tag=, DelayQueue.cancelByTag): on each shard at once, in bounded steps
// of lua/tag-cancel.lua, each cancelling up to `stepJobs` jobs as cancel.lua cancels one (a job a scanner holds, or
// whose failed send may have reached SQS, stays and is counted as in flight) and naming the next ones. A step is one
// script run, so Redis is never held longer than one step takes (docs/tags-and-upserts.md measures it); a shard's
// first step follows one read of its index (the step's keys include each job's due bucket, chosen from the id).
//
// Resumable without a cursor: cancelled jobs leave the index, so a cancel that stopped (its time budget, a lost
// connection) and is called again goes on with what is left; jobs found in flight are found again, and counted again.
// Jobs given the tag while the cancel runs are cancelled if their id comes after the step that is under way.
import type { Keyspace } from './keys'
import type { ReplicationOptions } from './redis/replication'
import { writeScript } from './redis/write'
import { rideOut } from './redis/ride-out'
import type { ScriptedClient } from './scripts'
import { decodeTagCancel, tagCancelCall } from './scripts/tag-cancel'
import { tagIds } from './tag-index'

/** Jobs one step cancels at most: ~4 ms of Redis on average, well under 50 ms at worst (docs/tags-and-upserts.md). */
export const TAG_CANCEL_STEP_JOBS = 100

export interface TagCancelProgress {
  /** Jobs cancelled so far: none of them reaches SQS. */
  cancelled: number
  /** Jobs left because they were being handed to SQS (or a failed send of them may have reached it). */
  inFlight: number
  /**
   * Pending occurrences of recurring schedules with the tag, left in place: removing one would end its series (only
   * an occurrence's ack creates the next). Pause or delete the schedule (the id before "@") to stop it.
   */
  recurring: number
}

export interface TagCancelResult extends TagCancelProgress {
  /** false: the time budget ran out first; the jobs left keep the tag, and a second call goes on with them. */
  done: boolean
}

export interface TagCancelOptions {
  stepJobs?: number
  /** Stop starting steps after this long (ms); the answer then says done: false. Default: no limit. */
  budgetMs?: number
  /** Called after each step with the totals so far. */
  onProgress?: (progress: TagCancelProgress) => void
  /** The clock the budget is measured on (tests pass a fake one). Default Date.now. */
  now?: () => number
}

export async function cancelByTag(
  redis: ScriptedClient,
  keys: Keyspace,
  replication: ReplicationOptions,
  tag: string,
  options: TagCancelOptions = {},
): Promise<TagCancelResult> {
  const step = options.stepJobs ?? TAG_CANCEL_STEP_JOBS
  const now = options.now ?? Date.now
  const stopAt = options.budgetMs === undefined ? Infinity : now() + options.budgetMs
  const total: TagCancelProgress = { cancelled: 0, inFlight: 0, recurring: 0 }
  let done = true
  await Promise.all(
    keys.shards.map(async (shard) => {
      let ids = await rideOut(redis, () => tagIds(redis, shard, tag, null, step))
      while (ids.length > 0) {
        if (now() >= stopAt) {
          done = false
          return
        }
        const call = tagCancelCall(keys, shard, tag, ids, step)
        const { reply, unconfirmed } = await writeScript(redis, replication, shard, call)
        // Cancelled on a primary whose replicas did not confirm it: a failover could bring those jobs back.
        if (unconfirmed) throw unconfirmed
        const stepped = decodeTagCancel(reply)
        total.cancelled += stepped.cancelled
        total.inFlight += stepped.inFlight
        total.recurring += stepped.recurring
        ids = stepped.next
        options.onProgress?.({ ...total })
      }
    }),
  )
  return { ...total, done }
}
