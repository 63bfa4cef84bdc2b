// lua/flow-take.lua: send times for the jobs of one rate-limited flow name, from its token bucket on Redis's clock.
import type { Keyspace } from '../store/keys'
import { guard } from '../store/redis/redis-errors'
import { rideOut } from '../store/redis/ride-out'
import { runScript, type ScriptCall, type ScriptedClient } from '../store/scripts'
import type { FlowRate } from './flow-names'

/** { now, at1, at2, ... }: 0 for a job that may leave now, else its send time (Redis ms). */
export type FlowTakeReply = number[]

export function flowTakeCall(keys: Keyspace, name: string, rate: FlowRate, ids: readonly string[]) {
  const { tat, slots, sent } = keys.rateShard(name).rateBucket(name)
  const call: ScriptCall<FlowTakeReply> = {
    script: 'sdqFlowTake',
    keys: { tat, slots, sent },
    args: { rate: rate.rate, burst: rate.burst, ids },
  }
  return call
}

export interface FlowTakeResult {
  /** The bucket's shard's clock when it answered (Redis ms). */
  redisNowMs: number
  /** Per id, in order: 0 to leave now, else the time it may leave (Redis ms). */
  sendAtMs: number[]
}

/** Asks the bucket of `name` (a flow name: src/flow/flow-names.ts) when each of `ids` may leave. */
export async function takeFlowTokens(
  redis: ScriptedClient,
  keys: Keyspace,
  name: string,
  rate: FlowRate,
  ids: readonly string[],
): Promise<FlowTakeResult> {
  const reply = await guard(rideOut(redis, () => runScript(redis, flowTakeCall(keys, name, rate, ids))))
  const [now, ...at] = reply.map(Number)
  return { redisNowMs: now!, sendAtMs: at }
}
