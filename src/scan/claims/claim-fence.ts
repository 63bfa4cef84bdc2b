// The claim as a fence: its jobs go to SQS only once a replica has confirmed the claim (WAIT), as API writes are
// confirmed (src/store/redis/replication.ts), with the same setting (REDIS_WAIT_REPLICAS, default auto).
//
// Why. After a failover, the old primary can live on for seconds believing it is the primary: Sentinel promoted a
// replica because the old one missed its pings (a loaded host, a network blip), and reconfigures it only once it hears
// from it again. A scanner still connected to it (a Sentinel client keeps its connection until it drops; a primary
// endpoint's DNS lags) keeps claiming there: jobs and occurrences that the new primary also sends (twice), that a cancel,
// delete or pause answered by the new primary removed (sent after the 204), all from a copy that is about to be
// discarded. The chaos run saw exactly this (occurrences after an acknowledged pause or delete, during a second
// promotion). The old primary has lost its replicas to the new one, so WAIT cannot confirm a claim there: the claim is
// given back unsent, and the store that has had a replica but has none online refuses the claim before it runs
// (NoReplicaError), as it refuses API writes. The scanner backs off and claims again, on the primary its next
// connection finds. `min-replicas-to-write 1` on the servers gives the same fence where it can be set.
//
// What it costs: one replica round trip per claim (WAIT returns at once when a claim wrote nothing new), and no
// dispatch while a replicated store's primary has no replica online (API writes are refused then too).
// REDIS_WAIT_REPLICAS=0 turns it off with the rest of replication.
import type { ShardKeys } from '../../store/keys'
import { guard } from '../../store/redis/redis-errors'
import type { ReplicationOptions } from '../../store/redis/replication'
import { writeScript } from '../../store/redis/write'
import { rideOut } from '../../store/redis/ride-out'
import { releaseCall, type Refusal } from '../../store/scripts/release'
import { type ClaimReply, type DecodedClaim, decodeClaim } from '../../store/scripts/claim'
import { runScript, type ScriptCall, type ScriptedClient } from '../../store/scripts'

/**
 * Runs the claim and reads its reply; with replication asked for, only a claim a replica confirmed comes back. An unconfirmed one is
 * released at once (due again, not counted against its jobs) and throws ReplicationUnconfirmedError: none of its jobs
 * may be sent.
 */
export async function fencedClaim(
  redis: ScriptedClient,
  replication: ReplicationOptions | undefined,
  shard: ShardKeys,
  call: ScriptCall<ClaimReply>,
  lease: { token: string; maxAttempts: number },
): Promise<DecodedClaim> {
  if (!replication || replication.replicas === 0)
    return decodeClaim(await guard(rideOut(redis, () => runScript(redis, call))))
  const { reply, unconfirmed } = await writeScript(redis, replication, shard, call)
  const claim = decodeClaim(reply)
  if (!unconfirmed) return claim
  const refusals: Refusal[] = []
  claim.forEachJob((id, _record, _dueMs, _attempt, orderMs) => {
    refusals.push({
      id,
      token: lease.token,
      error: unconfirmed.message,
      jobsFault: false,
      // Due again at once, in the place it had (its due or retry time: past), so a FIFO group keeps its order.
      retryAtMs: orderMs,
    })
  })
  // Best effort: on a demoted primary the release is discarded with the rest; on a primary whose replica is only
  // slow, it makes the jobs due again now rather than after their lease.
  if (refusals.length)
    await runScript(redis, releaseCall(shard, { maxAttempts: lease.maxAttempts, refusals })).catch(() => undefined)
  throw unconfirmed
}
