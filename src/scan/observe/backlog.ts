// What is waiting, read at each metrics window: pending jobs per target queue (the shards' counters) and the
// earliest due time of anything not yet in SQS (a due bucket's earliest job, or an expired lease / a retry time).
import { decodeCounterField } from '../../store/job-state'
import type { Keyspace } from '../../store/keys'
import type { ScriptedClient } from '../../store/scripts'

export interface Backlog {
  pending: Record<string, number>
  /** Earliest due time (Redis ms) over every shard, or null when nothing is pending. */
  earliestDueMs: number | null
}

export async function readBacklog(redis: ScriptedClient, keys: Keyspace): Promise<Backlog> {
  const backlog: Backlog = { pending: {}, earliestDueMs: null }
  const perShard = await Promise.all(
    keys.shards.map(async (shard) => {
      const replies = await redis
        .pipeline()
        .hgetall(shard.counts)
        .zrange(shard.index, '0', '0', 'WITHSCORES')
        .zrange(shard.inflight, '0', '0', 'WITHSCORES')
        .exec()
      for (const [err] of replies ?? []) if (err) throw err
      return replies!.map(([, value]) => value) as [Record<string, string>, string[], string[]]
    }),
  )
  for (const [counts, firstBucket, firstInflight] of perShard) {
    for (const [field, value] of Object.entries(counts)) {
      const { queue, counter } = decodeCounterField(field)
      if (counter !== 'pending') continue
      backlog.pending[queue] = (backlog.pending[queue] ?? 0) + Number(value)
    }
    for (const score of [firstBucket[1], firstInflight[1]]) {
      if (score === undefined) continue
      backlog.earliestDueMs = Math.min(backlog.earliestDueMs ?? Infinity, Number(score))
    }
  }
  return backlog
}
