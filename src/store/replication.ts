// Replicated writes: an API write (enqueue, replace, cancel, a schedule's put or delete) is answered only once WAIT
// says that enough replicas have it. Redis replicates asynchronously: without this, a primary that dies right after
// answering takes the write with it, and the replica Sentinel (or ElastiCache Multi-AZ) promotes has never seen it:
// an accepted job vanishes, or a cancelled one comes back and fires.
//
// Scanner writes (claim, ack, release) do not wait, on purpose: a claim or an ack lost in a failover only makes the
// job go out again (the lease it left on the old primary is gone, so the new primary still has the job due or
// inflight with an older lease): a duplicate, which consumers handle anyway, never a lost job. Waiting there would
// put a replica round trip on every batch of the dispatch path for no gain in safety.
import { ReplicationUnconfirmedError } from '../errors'
import { guard } from './redis-errors'
import type { ScriptCall } from './script-calls'
import { queueScript, runScript, type RedisClient, type ScriptedClient, type ScriptedPipeline } from './scripts'

export interface ReplicationOptions {
  /** Replicas that must confirm a write; 0 answers as soon as the primary has it. */
  replicas: number
  /** How long WAIT may block before the write is reported unconfirmed. */
  timeoutMs: number
}

export type Reply = [Error | null, unknown]

/**
 * Runs the writes `build` adds to a pipeline (all on one shard's node), then WAIT on the same connection. Returns the
 * writes' replies, and `unconfirmed` (an error to report for every write that succeeded) when fewer than
 * `replicas` confirmed.
 *
 * WAIT counts the replicas that have this *connection's* latest write. If the connection dropped between the writes
 * and WAIT, ioredis re-sends WAIT on a new connection (perhaps to a newly promoted primary) that has written nothing,
 * and it would confirm at once. CLIENT ID before and after tells: a different id means the confirmation is worthless.
 */
export async function replicatedWrites(
  redis: RedisClient,
  options: ReplicationOptions,
  build: (pipeline: ScriptedPipeline) => void,
): Promise<{ replies: Reply[]; unconfirmed?: ReplicationUnconfirmedError }> {
  const pipeline = redis.pipeline() as ScriptedPipeline
  if (options.replicas <= 0) {
    build(pipeline)
    return { replies: ((await pipeline.exec()) ?? []) as Reply[] }
  }
  pipeline.client('ID')
  build(pipeline)
  const writes = pipeline.length - 1
  pipeline.wait(options.replicas, options.timeoutMs).client('ID')
  const all = ((await pipeline.exec()) ?? []) as Reply[]
  const replies = all.slice(1, 1 + writes)
  const [[idBeforeError, idBefore], [waitError, acked], [idAfterError, idAfter]] = [
    all[0]!,
    all[1 + writes]!,
    all[2 + writes]!,
  ]
  const sameConnection = !idBeforeError && !idAfterError && idBefore === idAfter
  if (!waitError && sameConnection && Number(acked) >= options.replicas) return { replies }
  const confirmed = waitError || !sameConnection ? 0 : Number(acked)
  return {
    replies,
    unconfirmed: new ReplicationUnconfirmedError(
      confirmed,
      options.replicas,
      options.timeoutMs,
      waitError ?? undefined,
    ),
  }
}

/**
 * One script write (enqueue, cancel, a schedule's put or delete), followed by WAIT when replicas are asked for. The
 * caller throws `unconfirmed` once the reply shows the script wrote something (a refusal such as 409 wrote nothing).
 */
export async function writeScript<R>(
  redis: ScriptedClient,
  options: ReplicationOptions,
  call: ScriptCall<R>,
): Promise<{ reply: R; unconfirmed?: ReplicationUnconfirmedError }> {
  if (options.replicas <= 0) return { reply: await guard(runScript(redis, call)) }
  const { replies, unconfirmed } = await guard(
    replicatedWrites(redis, options, (pipeline) => void queueScript(pipeline, call)),
  )
  const [err, reply] = replies[0] ?? [new Error('no reply'), null]
  if (err) await guard(Promise.reject(err))
  return { reply: reply as R, unconfirmed }
}
