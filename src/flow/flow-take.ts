// A rate-limited flow name's send times, from its token bucket on Redis's clock (lua/flow-take.lua:
// src/store/scripts/flow-take.ts).
import type { Keyspace } from '../store/keys'
import { guard } from '../store/redis/redis-errors'
import { rideOut } from '../store/redis/ride-out'
import { runScript, type ScriptedClient } from '../store/scripts'
import { decodeFlowTake, flowTakeCall, type FlowTakeResult } from '../store/scripts/flow-take'
import type { FlowRate } from './flow-names'

export type { FlowTakeResult }

/** Asks the bucket of `name` (a flow name: src/flow/flow-names.ts) when each of `ids` may leave. */
export async function takeFlowTokens(
  redis: ScriptedClient,
  keys: Keyspace,
  name: string,
  rate: FlowRate,
  ids: readonly string[],
): Promise<FlowTakeResult> {
  return decodeFlowTake(await guard(rideOut(redis, () => runScript(redis, flowTakeCall(keys, name, rate, ids)))))
}
