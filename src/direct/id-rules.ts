// The id checks: a job id, a schedule id, and an occurrence id ("<schedule id>@<epoch ms>": src/recurrence/
// occurrence-id.ts), with the patterns and rules of the contract (src/contract/ids.ts). Every id a caller hands in is
// checked here.
import { ValidationError } from '../errors'
import {
  JOB_ID_PATTERN,
  JOB_ID_RULE,
  OCCURRENCE_ID_PATTERN,
  OCCURRENCE_SEPARATOR,
  RESERVED_ID_RULE,
  SCHEDULE_ID_PATTERN,
  SCHEDULE_ID_RULE,
  SCHEDULER_JOB_PREFIX,
} from '../contract/ids'

export { JOB_ID_PATTERN, JOB_ID_RULE, OCCURRENCE_ID_PATTERN, RESERVED_ID_RULE, SCHEDULE_ID_PATTERN, SCHEDULE_ID_RULE }

export function validateJobId(id: unknown, path = 'id'): string {
  if (typeof id !== 'string' || !JOB_ID_PATTERN.test(id)) throw new ValidationError([{ path, message: JOB_ID_RULE }])
  return id
}

/** An id to look up or cancel: a job id, or an occurrence id ("<schedule id>@<epoch ms>"). */
export function validateJobRef(id: unknown, path = 'id'): string {
  if (typeof id === 'string' && (JOB_ID_PATTERN.test(id) || OCCURRENCE_ID_PATTERN.test(id))) return id
  const occurrence = typeof id === 'string' && id.includes(OCCURRENCE_SEPARATOR)
  const rule = occurrence
    ? `an occurrence id must be "<schedule id>@<epoch ms>" (schedule id: ${SCHEDULE_ID_RULE.replace(/^must be /, '')})`
    : JOB_ID_RULE
  throw new ValidationError([{ path, message: rule }])
}

export function validateScheduleId(id: unknown): string {
  if (typeof id !== 'string' || !SCHEDULE_ID_PATTERN.test(id))
    throw new ValidationError([{ path: 'id', message: SCHEDULE_ID_RULE }])
  return id
}

/** A job or schedule id to write: 400 when it is one of the Scheduler-compatible API's, unless that API writes it. */
export function writableId(id: string, schedulerFrontDoor = false): string {
  if (!schedulerFrontDoor && id.startsWith(SCHEDULER_JOB_PREFIX)) {
    throw new ValidationError([{ path: 'id', message: RESERVED_ID_RULE }])
  }
  return id
}
