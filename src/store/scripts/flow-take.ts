// lua/flow-take.lua's whole contract on the TypeScript side: the call (KEYS and ARGV by name, in the header's order)
// and the reply read into named fields (decodeFlowTake).
import type { FlowRate } from '../../flow/flow-names'
import type { Keyspace } from '../keys'
import type { ScriptCall } from '../scripts'

/** { now, at1, at2, ... }: 0 for a job that may leave now, else its send time (Redis ms). Read it with decodeFlowTake. */
export type FlowTakeReply = number[]

export interface FlowTakeResult {
  /** The bucket's shard's clock when it answered (Redis ms). */
  redisNowMs: number
  /** Per id, in order: 0 to leave now, else the time it may leave (Redis ms). */
  sendAtMs: number[]
}

export function flowTakeCall(keys: Keyspace, name: string, rate: FlowRate, ids: readonly string[]) {
  const { tat, slots, sent } = keys.rateShard(name).rateBucket(name)
  const call: ScriptCall<FlowTakeReply> = {
    script: 'sdqFlowTake',
    keys: { tat, slots, sent },
    args: { rate: rate.rate, burst: rate.burst, ids },
  }
  return call
}

export function decodeFlowTake(reply: FlowTakeReply): FlowTakeResult {
  const [now, ...at] = reply.map(Number)
  return { redisNowMs: now!, sendAtMs: at }
}
