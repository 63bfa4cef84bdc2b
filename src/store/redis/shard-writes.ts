// Many script writes at once (a batch enqueue): one pipeline per shard, since a shard's keys live on one node, each
// followed by WAIT when replicas are asked for (src/store/redis/replication.ts, which also sends again what a slot move
// or a failover refused, each time with a WAIT of its own on the master that took it).
import { DelayQueueError, type ReplicationUnconfirmedError } from '../../errors'
import type { ShardKeys } from '../keys'
import { replicatedWrites, type ReplicationOptions, type Reply } from './replication'
import type { ScriptCall } from '../scripts'
import type { ScriptedClient } from '../scripts'

export interface ShardWrite {
  /** The shard the call's keys are on. */
  shard: ShardKeys
  call: ScriptCall<unknown>
}

export interface ShardWriteResult {
  reply: Reply
  /** Set when the replicas did not confirm this write in time: to report if the write changed something. */
  unconfirmed?: ReplicationUnconfirmedError
}

/** Results in input order; rejects only when a shard's pipeline fails as a whole (Redis away). */
export async function writePerShard(
  redis: ScriptedClient,
  replication: ReplicationOptions,
  writes: readonly ShardWrite[],
): Promise<ShardWriteResult[]> {
  const results: ShardWriteResult[] = new Array(writes.length)
  const byShard = new Map<ShardKeys, number[]>()
  writes.forEach(({ shard }, i) => {
    const indexes = byShard.get(shard)
    if (indexes) indexes.push(i)
    else byShard.set(shard, [i])
  })
  await Promise.all(
    [...byShard.entries()].map(async ([shard, indexes]) => {
      const calls = indexes.map((i) => writes[i]!.call)
      const written = await replicatedWrites(redis, replication, shard, calls).catch((e) => {
        // A shard that may not be written now (no replica: NoReplicaError) refuses its writes, not the others'.
        if (!(e instanceof DelayQueueError)) throw e
        return { replies: indexes.map((): Reply => [e, null]), unconfirmed: [] }
      })
      indexes.forEach((i, k) => {
        results[i] = {
          reply: written.replies[k] ?? [new Error('no reply'), null],
          unconfirmed: written.unconfirmed[k],
        }
      })
    }),
  )
  return results
}
