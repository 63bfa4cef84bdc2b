// lua/flow-resume.lua: a resume's bounded steps, shard by shard: jobs held for a pause go back to leave in due order.
import type { Keyspace, ShardKeys } from '../store/keys'
import { guard } from '../store/redis/redis-errors'
import { rideOut } from '../store/redis/ride-out'
import { runScript, type ScriptCall, type ScriptedClient } from '../store/scripts'

/** { moved, left }. */
export type FlowResumeReply = [number, number]

/** Jobs one step moves: ~1 ms of Redis's time. */
export const RESUME_STEP = 500

export function flowResumeCall(shard: ShardKeys, name: string, epoch: string, limit = RESUME_STEP) {
  const call: ScriptCall<FlowResumeReply> = {
    script: 'sdqFlowResume',
    keys: { inflight: shard.inflight, leases: shard.leases, held: shard.held(name), epoch: shard.flowEpoch },
    args: { limit, wake: shard.wakeChannel, epoch },
  }
  return call
}

/**
 * Puts back every job held for the pause of `name`, on every shard, and writes `epoch` (the settings without that
 * pause) on each as it is done; returns how many it moved.
 */
export async function releaseHeld(redis: ScriptedClient, keys: Keyspace, name: string, epoch: string): Promise<number> {
  let moved = 0
  for (const shard of keys.shards) {
    for (;;) {
      const call = flowResumeCall(shard, name, epoch)
      const [n, left] = await guard(rideOut(redis, () => runScript(redis, call)))
      moved += Number(n)
      if (Number(left) === 0) break
    }
  }
  return moved
}
