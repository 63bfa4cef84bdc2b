// A resume's bounded steps, shard by shard: jobs held for a pause go back to leave in due order (lua/flow-resume.lua:
// src/store/scripts/flow-resume.ts).
import type { Keyspace } from '../store/keys'
import { guard } from '../store/redis/redis-errors'
import { rideOut } from '../store/redis/ride-out'
import { runScript, type ScriptedClient } from '../store/scripts'
import { decodeFlowResume, flowResumeCall } from '../store/scripts/flow-resume'

/**
 * Puts back every job held for the pause of `name`, on every shard, and writes `epoch` (the settings without that
 * pause) on each as it is done; returns how many it moved.
 */
export async function releaseHeld(redis: ScriptedClient, keys: Keyspace, name: string, epoch: string): Promise<number> {
  let moved = 0
  for (const shard of keys.shards) {
    for (;;) {
      const call = flowResumeCall(shard, name, epoch)
      const step = decodeFlowResume(await guard(rideOut(redis, () => runScript(redis, call))))
      moved += step.moved
      if (step.left === 0) break
    }
  }
  return moved
}
