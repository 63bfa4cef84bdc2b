// lua/schedule-delete.lua's whole contract on the TypeScript side: the call (KEYS and ARGV by name, in the header's
// order) and the reply read (decodeScheduleDelete).
import { ScriptErrorCode } from '../script-errors'
import type { JobLocation } from '../keys'
import type { ScriptCall } from '../scripts'
import { scheduleKeys } from './schedule-keys'

/** lua/schedule-delete.lua: 1, or 0 (no such schedule). */
export function scheduleDeleteCall(at: JobLocation, id: string): ScriptCall<number> {
  return { script: 'sdqScheduleDelete', keys: scheduleKeys(at), args: { id, bucketNo: at.bucketNo } }
}

/** A schedule-delete reply, read: true when the schedule was deleted, false when there was none. */
export function decodeScheduleDelete(reply: number): boolean {
  return Number(reply) !== ScriptErrorCode.ScheduleNotFound
}
