// What /stats shows: per-queue counters (src/store/job-state.ts names them), leased and dead totals, and the
// earliest due time, read from every shard in one pipeline each.
import type { Keyspace } from './keys'
import { decodeCounterField } from './job-state'
import type { ScriptedClient } from './scripts'
import { isoTime } from '../shared/iso-time'
import type { QueueCounts } from '../contract/job'

export type { QueueCounts }

export interface StoreStats {
  queues: Record<string, QueueCounts>
  /** Jobs leased to a scanner or waiting for a dispatch retry. */
  inflight: number
  dead: number
  /** Earliest due time of anything pending, or null. */
  nextDueAt: string | null
}

/**
 * The queues /stats shows (and `sdq stats`, the dashboard): every configured queue, idle ones with zeros, and a queue
 * no longer configured while it still has pending or dead jobs.
 */
export function queuesAsConfigured(
  configured: readonly string[],
  counted: Record<string, QueueCounts>,
): Record<string, QueueCounts> {
  const queues: Record<string, QueueCounts> = {}
  for (const name of configured) queues[name] = { pending: 0, dead: 0, dispatched: 0 }
  for (const [name, counts] of Object.entries(counted)) {
    if (configured.includes(name) || counts.pending > 0 || counts.dead > 0) {
      queues[name] = { ...(queues[name] ?? { pending: 0, dead: 0, dispatched: 0 }), ...counts }
    }
  }
  return queues
}

export async function readStats(redis: ScriptedClient, keys: Keyspace): Promise<StoreStats> {
  const perShard = await Promise.all(
    keys.shards.map(async (shard) => {
      const replies = await redis
        .pipeline()
        .hgetall(shard.counts)
        .zcard(shard.inflight)
        .zcard(shard.dead)
        .zrange(shard.index, '0', '0', 'WITHSCORES')
        .zrange(shard.inflight, '0', '0', 'WITHSCORES')
        .exec()
      for (const [err] of replies ?? []) if (err) throw err
      const value = (i: number) => replies![i]![1]
      return {
        counts: value(0) as Record<string, string>,
        inflight: Number(value(1)),
        dead: Number(value(2)),
        firstDue: [value(3), value(4)]
          .map((r) => (r as string[])[1])
          .filter(Boolean)
          .map(Number),
      }
    }),
  )
  const stats: StoreStats = { queues: {}, inflight: 0, dead: 0, nextDueAt: null }
  let next = Infinity
  for (const shard of perShard) {
    stats.inflight += shard.inflight
    stats.dead += shard.dead
    for (const due of shard.firstDue) next = Math.min(next, due)
    for (const [field, count] of Object.entries(shard.counts)) {
      const { queue, counter } = decodeCounterField(field)
      const counts = stats.queues[queue] ?? { pending: 0, dead: 0, dispatched: 0 }
      stats.queues[queue] = counts
      if (counter in counts) counts[counter as keyof QueueCounts] += Number(count)
    }
  }
  if (next !== Infinity) stats.nextDueAt = isoTime(next)
  return stats
}
