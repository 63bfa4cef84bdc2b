// lua/cancel.lua's whole contract on the TypeScript side: the call (KEYS and ARGV by name, in the header's order),
// its success code (CancelStatus) and the reply read (decodeCancel).
import type { ScriptErrorCode } from '../script-errors'
import { parseOccurrenceId } from '../../recurrence/occurrence-id'
import type { JobLocation } from '../keys'
import type { ScriptCall } from '../scripts'
import { jobSideKeys } from './job-side-keys'

/** lua/cancel.lua's one success code (any other reply is a ScriptErrorCode). */
export enum CancelStatus {
  Cancelled = 1,
}

/** A cancel reply, read: cancelled, or the ScriptErrorCode that says why not. */
export type DecodedCancel = { status: CancelStatus.Cancelled } | { status: 'refused'; code: ScriptErrorCode }

/** lua/cancel.lua: CancelStatus.Cancelled, or a ScriptErrorCode. */
export function cancelCall({ shard, bucket, bucketNo }: JobLocation, id: string): ScriptCall<number> {
  return {
    script: 'sdqCancel',
    keys: {
      ...jobSideKeys({ shard, bucket }),
      schedules: shard.schedules,
      tags: shard.tags,
    },
    args: { id, bucketNo, scheduleId: parseOccurrenceId(id)?.scheduleId ?? '' },
  }
}

export function decodeCancel(reply: number): DecodedCancel {
  const code = Number(reply)
  if (code === CancelStatus.Cancelled) return { status: CancelStatus.Cancelled }
  return { status: 'refused', code: code as ScriptErrorCode }
}
