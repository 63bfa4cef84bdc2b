// Leased jobs held back from SQS, pending still: for a pause (until a resume), or until the send time a rate gave
// them (lua/flow-hold.lua: src/store/scripts/flow-hold.ts).
import type { ShardKeys } from '../store/keys'
import { guard } from '../store/redis/redis-errors'
import { rideOut } from '../store/redis/ride-out'
import { runScript, type ScriptedClient } from '../store/scripts'
import { decodeFlowHold, flowHoldCall, type FlowHold as HoldOf } from '../store/scripts/flow-hold'
import type { ClaimedJob } from '../scan/claims/claimed-job'

/** A claimed job to hold: for the pause of `pausedName`, or until `atMs` (Redis ms) for a rate. */
export type FlowHold = HoldOf<ClaimedJob>

/** Holds the jobs (of one shard); returns how many of a pause's were taken again at once (the settings moved). */
export async function holdJobs(
  redis: ScriptedClient,
  shard: ShardKeys,
  epoch: string,
  recheckMs: number,
  holds: readonly FlowHold[],
): Promise<{ held: number; retaken: number }> {
  if (holds.length === 0) return { held: 0, retaken: 0 }
  const call = flowHoldCall(shard, epoch, recheckMs, holds)
  return decodeFlowHold(await guard(rideOut(redis, () => runScript(redis, call))))
}
