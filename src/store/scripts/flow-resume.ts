// lua/flow-resume.lua's whole contract on the TypeScript side: one step's call (KEYS and ARGV by name, in the
// header's order) and its reply read into named fields (decodeFlowResume).
import type { ShardKeys } from '../keys'
import type { ScriptCall } from '../scripts'

/** { moved, left }. Read it with decodeFlowResume. */
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

/** A step's reply, read: the jobs it moved, and how many the held set still holds (0: the shard is done). */
export function decodeFlowResume(reply: FlowResumeReply): { moved: number; left: number } {
  const [moved, left] = reply
  return { moved: Number(moved), left: Number(left) }
}
