// lua/revive.lua's whole contract on the TypeScript side: the call (KEYS and ARGV by name, in the header's order)
// and the reply read (decodeRevive).
import { ScriptErrorCode } from '../script-errors'
import type { JobLocation } from '../keys'
import type { ScriptCall } from '../scripts'

/** lua/revive.lua: the new due time (ms), or ScriptErrorCode.JobNotFound (0). */
export function reviveCall({ shard, bucket, bucketNo }: JobLocation, id: string, delayMs: number): ScriptCall<number> {
  return {
    script: 'sdqRevive',
    keys: {
      jobs: shard.jobs,
      index: shard.index,
      bucket,
      errors: shard.errors,
      dead: shard.dead,
      counts: shard.counts,
    },
    args: { id, bucketNo, delayMs, wake: shard.wakeChannel },
  }
}

/** A revive reply, read: the job's new due time (ms), or null when no dead job had the id. */
export function decodeRevive(reply: number): number | null {
  const due = Number(reply)
  return due === ScriptErrorCode.JobNotFound ? null : due
}
