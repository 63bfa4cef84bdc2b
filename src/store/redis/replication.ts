// Replicated writes: an API write (enqueue, replace, cancel, a schedule's put or delete) is answered only once WAIT
// says that enough replicas have it. Redis replicates asynchronously: without this, a primary that dies right after
// answering takes the write with it, and the replica Sentinel (or ElastiCache Multi-AZ) promotes has never seen it:
// an accepted job vanishes, or a cancelled one comes back and fires.
//
// A scanner's claim waits too, as a fence (src/scan/claims/claim-fence.ts): its jobs go to SQS only once a replica has the
// claim, so a replaced primary that still runs (two primaries for a while after a failover) sends nothing from its
// stale copy: no job a cancel on the new primary removed, none the new primary sends as well. Acks and releases do
// not wait: one lost in a failover only makes the job go out again (the new primary still has it inflight under the
// lease the confirmed claim wrote): a duplicate, which consumers handle anyway, never a lost or resurrected job.
//
// How many replicas: REDIS_WAIT_REPLICAS=auto (the default) waits for one whenever the shard's primary has one
// (src/store/redis/replica-watch.ts); a number waits for that many, always, and refuses (503) when fewer confirm.
import { ReplicationUnconfirmedError } from '../../errors'
import type { ShardKeys } from '../keys'
import { requiredReplicas, type ReplicaWatch } from './replica-watch'
import type { ScriptCall } from '../scripts'
import { notRun, RideOut, rideOut } from './ride-out'
import { queueScript, queueScriptAs, type RedisClient, type ScriptedClient, type ScriptedPipeline } from '../scripts'

/** Writes answered as soon as the primary has them: a choice a caller states (tests, benches), never a default. */
export const NO_REPLICA_WAIT: ReplicationOptions = { replicas: 0, timeoutMs: 1_000 }

export interface ReplicationOptions {
  /**
   * Replicas that must confirm a write; 0 answers as soon as the primary has it. `auto`: one when the primary has a
   * replica online, as `watch` sees it.
   */
  replicas: number | 'auto'
  /** How long WAIT may block before the write is reported unconfirmed. */
  timeoutMs: number
  /** With `auto`: what each shard's primary has (one per Redis client, shared by its stores). */
  watch?: ReplicaWatch
  /** How long writes refused unrun (slot moving, failover) are sent again. Default RIDE_OUT_MS. */
  rideOutMs?: number
}

/** requiredReplicas, riding out a slot move or failover that refuses the look at the shard's master. */
export function replicasNow(redis: RedisClient, options: ReplicationOptions, shard: ShardKeys): Promise<number> {
  return rideOut(redis, () => requiredReplicas(options, shard), options.rideOutMs)
}

export type Reply = [Error | null, unknown]

export interface WritesResult {
  /** The writes' replies, in the order of the calls. */
  replies: Reply[]
  /** Per write: set when fewer replicas than asked confirmed it (to report if the write changed something). */
  unconfirmed: (ReplicationUnconfirmedError | undefined)[]
}

/**
 * Runs script writes, all on one shard's node, each round in one pipeline: CLIENT ID, the writes, WAIT, CLIENT ID.
 * WAIT thus always runs on the connection, hence the master, that took the writes it confirms: also after a slot
 * moved or a master was replaced, since a refused write is sent again in a new round with a WAIT of its own.
 *
 * WAIT counts the replicas that have this *connection's* latest write. If the connection dropped between the writes
 * and WAIT, ioredis re-sends WAIT on a new connection (perhaps to a newly promoted primary) that has written nothing,
 * and it would confirm at once. CLIENT ID before and after tells: a different id means the confirmation is worthless.
 *
 * Writes refused without running (a slot on the move, a master failing over, a script the master has not loaded)
 * are sent again, with backoff, for up to RIDE_OUT_MS (src/store/redis/ride-out.ts); after that they keep their error.
 */
export async function replicatedWrites(
  redis: RedisClient,
  options: ReplicationOptions,
  shard: ShardKeys,
  calls: readonly ScriptCall<unknown>[],
  /** When the caller has asked requiredReplicas already. */
  required?: number,
): Promise<WritesResult> {
  const replies: Reply[] = calls.map(() => [new Error('not sent'), null])
  const unconfirmed: (ReplicationUnconfirmedError | undefined)[] = calls.map(() => undefined)
  const ride = new RideOut(redis, options.rideOutMs)
  let pending = calls.map((_, i) => i)
  const missingScripts = new Set<string>()
  for (let round = 0; pending.length > 0; round++) {
    let replicas: number
    try {
      replicas = round === 0 && required !== undefined ? required : await replicasNow(redis, options, shard)
    } catch (e) {
      // NoReplicaError: no write of this round may happen. A first round throws it (the caller refuses the lot).
      if (round === 0) throw e
      for (const i of pending) replies[i] = [e as Error, null]
      break
    }
    const sent = pending
    const round_ = await writeRound(
      redis as ScriptedClient,
      options,
      shard,
      sent.map((i) => calls[i]!),
      replicas,
      missingScripts,
    )
    pending = []
    let refusal: Error | undefined
    sent.forEach((i, k) => {
      const reply = round_.replies[k] ?? [new Error('no reply'), null]
      replies[i] = reply
      unconfirmed[i] = round_.unconfirmed
      if (reply[0] && notRun(reply[0])) {
        pending.push(i)
        refusal ??= reply[0]
        if (/^NOSCRIPT/.test(reply[0].message)) missingScripts.add(calls[i]!.script)
      }
    })
    if (refusal && !(await ride.again(refusal))) break
  }
  return { replies, unconfirmed }
}

/** One pipeline of writes, with CLIENT ID / WAIT / CLIENT ID around them when `replicas` > 0. */
async function writeRound(
  redis: ScriptedClient,
  options: ReplicationOptions,
  shard: ShardKeys,
  calls: readonly ScriptCall<unknown>[],
  replicas: number,
  /** Scripts a master answered NOSCRIPT for: sent with their text (EVAL), which loads them. */
  missingScripts: ReadonlySet<string>,
): Promise<{ replies: Reply[]; unconfirmed?: ReplicationUnconfirmedError }> {
  const pipeline = redis.pipeline() as ScriptedPipeline
  if (replicas <= 0) {
    // No WAIT to keep the writes ahead of: ioredis's own NOSCRIPT fallback (EVAL) is fine here.
    for (const call of calls) queueScript(pipeline, call)
    return { replies: ((await pipeline.exec()) ?? []) as Reply[] }
  }
  pipeline.client('ID')
  for (const call of calls) queueScriptAs(pipeline, call, missingScripts.has(call.script) ? 'eval' : 'evalsha')
  pipeline.wait(replicas, options.timeoutMs).client('ID')
  const all = ((await pipeline.exec()) ?? []) as Reply[]
  const writes = calls.length
  const replies = all.slice(1, 1 + writes)
  const [[idBeforeError, idBefore], [waitError, acked], [idAfterError, idAfter]] = [
    all[0]!,
    all[1 + writes]!,
    all[2 + writes]!,
  ]
  const sameConnection = !idBeforeError && !idAfterError && idBefore === idAfter
  if (!waitError && sameConnection && Number(acked) >= replicas) return { replies }
  const confirmed = waitError || !sameConnection ? 0 : Number(acked)
  options.watch?.forget(shard)
  return {
    replies,
    unconfirmed: new ReplicationUnconfirmedError(confirmed, replicas, options.timeoutMs, waitError ?? undefined),
  }
}
