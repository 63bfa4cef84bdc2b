// lua/flow-hold.lua: hold leased jobs back from SQS, pending still: for a pause (until a resume), or until the send
// time a rate gave them.
import type { ShardKeys } from '../store/keys'
import { guard } from '../store/redis/redis-errors'
import { rideOut } from '../store/redis/ride-out'
import { runScript, type ScriptCall, type ScriptedClient } from '../store/scripts'
import type { ClaimedJob } from '../scan/claims/claimed-job'

/** { held, retaken }. */
export type FlowHoldReply = [number, number]

/** A job to hold: for the pause of `pausedName`, or until `atMs` (Redis ms) for a rate. */
export type FlowHold = { job: ClaimedJob; pausedName: string } | { job: ClaimedJob; atMs: number }

export function flowHoldCall(shard: ShardKeys, epoch: string, recheckMs: number, holds: readonly FlowHold[]) {
  const names: string[] = []
  const quintets: (string | number)[] = []
  for (const h of holds) {
    let heldAt = 0
    if ('pausedName' in h) {
      const i = names.indexOf(h.pausedName)
      heldAt = 4 + (i < 0 ? names.push(h.pausedName) - 1 : i)
    }
    quintets.push(h.job.id, h.job.token, heldAt, 'atMs' in h ? h.atMs : 0, h.job.orderMs)
  }
  const call: ScriptCall<FlowHoldReply> = {
    script: 'sdqFlowHold',
    keys: {
      inflight: shard.inflight,
      leases: shard.leases,
      epoch: shard.flowEpoch,
      held: names.map((n) => shard.held(n)),
    },
    args: { epoch, recheckMs, quintets },
  }
  return call
}

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
  const [held, retaken] = await guard(rideOut(redis, () => runScript(redis, call)))
  return { held: Number(held), retaken: Number(retaken) }
}
