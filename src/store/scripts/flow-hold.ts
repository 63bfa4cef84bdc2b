// lua/flow-hold.lua's whole contract on the TypeScript side: the call (KEYS and ARGV by name, in the header's order)
// and the reply read into named fields (decodeFlowHold).
import type { ShardKeys } from '../keys'
import type { ScriptCall } from '../scripts'

/** { held, retaken }. Read it with decodeFlowHold. */
export type FlowHoldReply = [number, number]

/** What the script needs of a leased job: which it is, and the lease that holds it. */
export interface HeldJob {
  id: string
  token: string
}

/**
 * A job to hold: for the pause of `pausedName` at `placeMs` (its place in due order, which a resume gives back), or
 * until `atMs` (Redis ms) for a rate.
 */
export type FlowHold<J extends HeldJob = HeldJob> =
  | { job: J; pausedName: string; placeMs: number }
  | { job: J; atMs: number }

export function flowHoldCall(shard: ShardKeys, epoch: string, recheckMs: number, holds: readonly FlowHold[]) {
  const names: string[] = []
  const quintets: (string | number)[] = []
  for (const h of holds) {
    let heldAt = 0
    if ('pausedName' in h) {
      const i = names.indexOf(h.pausedName)
      heldAt = 4 + (i < 0 ? names.push(h.pausedName) - 1 : i)
    }
    quintets.push(h.job.id, h.job.token, heldAt, 'atMs' in h ? h.atMs : 0, 'placeMs' in h ? h.placeMs : 0)
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

/** A hold's reply, read: the jobs held, and those of a pause taken again at once (the settings had moved). */
export function decodeFlowHold(reply: FlowHoldReply): { held: number; retaken: number } {
  const [held, retaken] = reply
  return { held: Number(held), retaken: Number(retaken) }
}
