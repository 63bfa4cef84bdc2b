// Many script writes at once (a batch enqueue): one pipeline per shard, since a shard's keys live on one node, each
// followed by WAIT when replicas are asked for (src/store/replication.ts).
import { DelayQueueError, type ReplicationUnconfirmedError } from '../errors'
import { isSlotMoving } from './redis-errors'
import type { ShardKeys } from './keys'
import { replicatedWrites, type ReplicationOptions, type Reply } from './replication'
import type { ScriptCall } from './script-calls'
import { queueScript, runScript, type ScriptedClient } from './scripts'

export interface ShardWrite {
  /** The shard the call's keys are on. */
  shard: ShardKeys
  call: ScriptCall<unknown>
}

export interface ShardWriteResult {
  reply: Reply
  /** Set when the replicas did not confirm this write's shard in time: to report if the write changed something. */
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
      const written = await replicatedWrites(redis, replication, shard, (pipeline) => {
        for (const i of indexes) queueScript(pipeline, writes[i]!.call)
      }).catch((e) => {
        // A shard that may not be written now (no replica: NoReplicaError) refuses its writes, not the others'.
        if (!(e instanceof DelayQueueError)) throw e
        return { replies: indexes.map((): Reply => [e, null]), unconfirmed: undefined }
      })
      const replies = written.replies
      let { unconfirmed } = written
      let resent = false
      for (const [k, i] of indexes.entries()) {
        const [err] = replies[k] ?? []
        // A slot on the move (Redis Cluster resharding) refuses commands without running them, and ioredis
        // re-sends a pipeline only when every command was refused alike: re-send these one at a time.
        if (err && isSlotMoving(err)) {
          resent = true
          replies[k] = await runScript(redis, writes[i]!.call).then(
            (reply): Reply => [null, reply],
            (e: Error): Reply => [e, null],
          )
        }
      }
      // The re-sent writes need a confirmation of their own (an empty pipeline: only the WAIT).
      if (resent && !unconfirmed) {
        unconfirmed = (await replicatedWrites(redis, replication, shard, () => {})).unconfirmed
      }
      indexes.forEach((i, k) => {
        results[i] = { reply: replies[k] ?? [new Error('no reply'), null], unconfirmed }
      })
    }),
  )
  return results
}
