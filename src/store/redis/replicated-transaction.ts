// A MULTI/EXEC of plain commands held to the replication rule of the engine's script writes
// (src/store/redis/replication.ts): answered only once WAIT says that REDIS_WAIT_REPLICAS replicas have it. The
// Scheduler-compatible API keeps its definitions this way (src/scheduler-api/definition-store.ts): a definition that a
// failover loses while its job survives would fire a schedule that GetSchedule no longer knows.
//
// As for scripts, one pipeline: CLIENT ID, MULTI, the commands, EXEC, WAIT, CLIENT ID. WAIT thus runs on the
// connection, hence the master, that ran the transaction (on a Cluster the pipeline goes to the node of its keys), and
// a CLIENT ID that changed in between (a reconnect re-sent WAIT on a connection that wrote nothing) confirms nothing.
import { ReplicationUnconfirmedError } from '../../errors'
import type { ShardKeys } from '../keys'
import { guard } from './redis-errors'
import { requiredReplicas } from './replica-watch'
import type { ReplicationOptions, Reply } from './replication'
import { rideOut } from './ride-out'
import type { RedisClient } from '../scripts'

export type TransactionCommand = [name: string, ...args: (string | number)[]]

export interface TransactionResult {
  /** Each command's reply, as ioredis gives a transaction's: [error, value]. */
  replies: Reply[]
  /** Set when fewer replicas than required confirmed the transaction. */
  unconfirmed?: ReplicationUnconfirmedError
}

/**
 * Runs `commands` in one MULTI/EXEC, followed by WAIT when replicas are required. `shard` says which primary's
 * replicas count for REDIS_WAIT_REPLICAS=auto; keys outside the shards (a schedule group's own hash tag) name the
 * shard 0 of their deployment: a Cluster's masters have their replicas alike, and WAIT itself runs where the keys are.
 * Throws the error of a command the transaction refused (OOM: nothing ran).
 */
export async function replicatedTransaction(
  redis: RedisClient,
  options: ReplicationOptions,
  shard: ShardKeys,
  commands: readonly TransactionCommand[],
): Promise<TransactionResult> {
  const required =
    options.replicas === 0 ? 0 : await guard(rideOut(redis, () => requiredReplicas(options, shard), options.rideOutMs))
  const pipeline = redis.pipeline()
  if (required > 0) pipeline.client('ID')
  pipeline.call('MULTI')
  for (const [name, ...args] of commands) pipeline.call(name, ...args)
  pipeline.call('EXEC')
  if (required > 0) pipeline.wait(required, options.timeoutMs).client('ID')
  const all = ((await pipeline.exec()) ?? []) as Reply[]
  const start = required > 0 ? 1 : 0
  // MULTI, each QUEUED, EXEC: an error among them (OOM, a wrong argument) means the transaction did not run.
  const refused = all.slice(start, start + commands.length + 2).find(([e]) => e)
  if (refused) throw refused[0]
  const executed = (all[start + commands.length + 1]?.[1] ?? []) as unknown[]
  const replies: Reply[] = executed.map((r) => (r instanceof Error ? [r, null] : [null, r]))
  if (required === 0) return { replies }
  const [[idBeforeError, idBefore], [waitError, acked], [idAfterError, idAfter]] = [
    all[0]!,
    all[start + commands.length + 2]!,
    all[start + commands.length + 3]!,
  ]
  const sameConnection = !idBeforeError && !idAfterError && idBefore === idAfter
  if (!waitError && sameConnection && Number(acked) >= required) return { replies }
  const confirmed = waitError || !sameConnection ? 0 : Number(acked)
  options.watch?.forget(shard)
  return {
    replies,
    unconfirmed: new ReplicationUnconfirmedError(confirmed, required, options.timeoutMs, waitError ?? undefined),
  }
}
