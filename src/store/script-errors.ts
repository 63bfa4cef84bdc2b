// The Lua scripts' error codes (each script's header names its own) and the one place that turns them into the
// queue's errors (src/errors.ts).
import {
  type DelayQueueError,
  IdempotencyKeyReusedError,
  JobDeadError,
  JobDispatchingError,
  JobExistsError,
  JobHeldError,
  JobMaybeDispatchedError,
  JobNotFoundError,
  OccurrenceOfScheduleError,
  ScheduleChangedError,
  ScheduleNotFoundError,
  type ExistingJob,
} from '../errors'
import { parseOccurrenceId } from '../recurrence/occurrence-id'

/**
 * Codes the Lua scripts return in place of a result (see each script's header): the job scripts' codes, mapped by
 * scriptError, and the schedule scripts' (lua/schedule-put.lua, schedule-delete.lua), mapped by scheduleScriptError.
 * "Not found" is 0 on both sides.
 */
export enum ScriptErrorCode {
  JobNotFound = 0,
  JobExists = -1,
  JobDispatching = -2,
  OccurrenceOfSchedule = -3,
  JobMaybeDispatched = -5,
  IdempotencyKeyReused = -6,
  JobDead = -7,
  JobHeld = -8,
  ScheduleNotFound = JobNotFound,
  ScheduleChanged = -4,
}

/** The one factory that turns a script's error code into an error. */
export function scriptError(code: ScriptErrorCode, jobId: string, existing?: ExistingJob): DelayQueueError {
  switch (code) {
    case ScriptErrorCode.JobNotFound:
      return new JobNotFoundError(jobId)
    case ScriptErrorCode.JobExists:
      if (!existing) throw new Error('JobExists needs the existing job')
      return new JobExistsError(jobId, existing)
    case ScriptErrorCode.JobDispatching:
      return new JobDispatchingError(jobId)
    case ScriptErrorCode.JobMaybeDispatched:
      return new JobMaybeDispatchedError(jobId)
    case ScriptErrorCode.IdempotencyKeyReused:
      return new IdempotencyKeyReusedError(jobId)
    case ScriptErrorCode.JobDead:
      return new JobDeadError(jobId)
    case ScriptErrorCode.JobHeld:
      return new JobHeldError(jobId)
    case ScriptErrorCode.OccurrenceOfSchedule: {
      const occurrence = parseOccurrenceId(jobId)
      if (!occurrence) throw new Error('OccurrenceOfSchedule needs an occurrence id')
      return new OccurrenceOfScheduleError(jobId, occurrence.scheduleId)
    }
    default:
      throw new Error(`unknown script error code ${String(code)}`)
  }
}

/** The same for the schedule scripts, whose codes name a schedule. */
export function scheduleScriptError(code: ScriptErrorCode, scheduleId: string): DelayQueueError {
  switch (code) {
    case ScriptErrorCode.ScheduleNotFound:
      return new ScheduleNotFoundError(scheduleId)
    case ScriptErrorCode.ScheduleChanged:
      return new ScheduleChangedError(scheduleId)
    default:
      throw new Error(`unknown schedule script error code ${String(code)}`)
  }
}
