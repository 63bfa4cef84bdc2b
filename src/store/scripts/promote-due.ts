// lua/promote-due.lua's whole contract on the TypeScript side: the call (KEYS and ARGV by name, in the header's
// order), with one run's bounds, and the reply read into named fields (decodePromoteDue).
import type { ShardKeys } from '../keys'
import type { ScriptCall } from '../scripts'

/** Jobs one promote-due run reads at most: a run stays well under a millisecond of Redis time per 100 jobs. */
export const JOBS_PER_RUN = 500
/** Record bytes one promote-due run reads at most with a queue filter (each record is read for its queue). */
export const BYTES_PER_RUN = 1_000_000

/** lua/promote-due.lua: { promoted, stoppedAt, from, after }. Read it with decodePromoteDue. */
export type PromoteDueReply = [number, number, number | string, string]

/** A promote-due reply, read: how many jobs it made due, and where the walk goes on. */
export interface DecodedPromoteDue {
  promoted: number
  /** The position in the run's buckets (0-based) to go on from; their count when the run's buckets are done. */
  stoppedAt: number
  /** Where to go on inside that bucket: the due time and id of the last job read (0 and "" at its start). */
  from: number
  after: string
}

export function promoteDueCall(
  shard: ShardKeys,
  at: { bucket: number; from: number; after: string },
  count: number,
  o: { beforeMs: number; queue: string },
): ScriptCall<PromoteDueReply> {
  return {
    script: 'sdqPromoteDue',
    keys: {
      jobs: shard.jobs,
      index: shard.index,
      buckets: Array.from({ length: count }, (_, i) => shard.bucket(at.bucket + i)),
    },
    args: {
      beforeMs: o.beforeMs,
      queue: o.queue,
      from: at.from,
      maxJobs: JOBS_PER_RUN,
      maxBytes: BYTES_PER_RUN,
      firstBucketNo: at.bucket,
      wake: shard.wakeChannel,
      after: at.after,
    },
  }
}

export function decodePromoteDue(reply: PromoteDueReply): DecodedPromoteDue {
  const [promoted, stoppedAt, from, after] = reply
  return { promoted: Number(promoted), stoppedAt: Number(stoppedAt), from: Number(from), after: String(after) }
}
