// The id rules, each pattern once: a job id, a schedule id, and an occurrence id built from the schedule id's pattern
// ("<schedule id>@<epoch ms>": src/schedule/occurrence-id.ts). Every id a caller hands in is checked here.
import { ValidationError } from '../errors'
import { OCCURRENCE_SEPARATOR } from '../schedule/occurrence-id'
import { SCHEDULER_JOB_PREFIX } from '../sqs/raw-input'

/** The alphabet of every id: no "@" (it starts an occurrence's time), nothing a key or a URL would need to escape. */
const ID_CHAR = '[A-Za-z0-9_.:-]'

export const JOB_ID_PATTERN = new RegExp(`^${ID_CHAR}{1,128}$`)
export const JOB_ID_RULE = 'must be 1-128 characters of [A-Za-z0-9_.:-]'

/** Leaves room for "@<epoch ms>" within the 128-character job id limit. */
const SCHEDULE_ID = `${ID_CHAR}{1,100}`
export const SCHEDULE_ID_PATTERN = new RegExp(`^${SCHEDULE_ID}$`)
export const SCHEDULE_ID_RULE = 'must be 1-100 characters of [A-Za-z0-9_.:-]'

/** An occurrence of a recurring schedule: "<schedule id>@<epoch ms>" (src/schedule/time-bounds.ts bounds the ms). */
export const OCCURRENCE_ID_PATTERN = new RegExp(`^${SCHEDULE_ID}${OCCURRENCE_SEPARATOR}\\d{1,15}$`)

/** A job id from a URL or a caller: 400 unless it follows the id rule. */
export function validateJobId(id: unknown, path = 'id'): string {
  if (typeof id !== 'string' || !JOB_ID_PATTERN.test(id)) throw new ValidationError([{ path, message: JOB_ID_RULE }])
  return id
}

/** An id to look up or cancel: a job id, or an occurrence id ("<schedule id>@<epoch ms>"). */
export function validateJobRef(id: unknown, path = 'id'): string {
  if (typeof id === 'string' && (JOB_ID_PATTERN.test(id) || OCCURRENCE_ID_PATTERN.test(id))) return id
  const occurrence = typeof id === 'string' && id.includes(OCCURRENCE_SEPARATOR)
  const rule = occurrence
    ? 'an occurrence id must be "<schedule id>@<epoch ms>" (schedule id: 1-100 of [A-Za-z0-9_.:-])'
    : JOB_ID_RULE
  throw new ValidationError([{ path, message: rule }])
}

export function validateScheduleId(id: unknown): string {
  if (typeof id !== 'string' || !SCHEDULE_ID_PATTERN.test(id))
    throw new ValidationError([{ path: 'id', message: SCHEDULE_ID_RULE }])
  return id
}

/**
 * Ids the Scheduler-compatible API gives the jobs and schedules it makes (src/scheduler-api/job-id.ts). Anyone else
 * writing one would overwrite a Scheduler schedule's job, or make one that delivers its payload as a Scheduler Input.
 */
export const RESERVED_ID_RULE = `must not start with "${SCHEDULER_JOB_PREFIX}" (reserved for the Scheduler-compatible API)`

/** A job or schedule id to write: 400 when it is one of the Scheduler-compatible API's, unless that API writes it. */
export function writableId(id: string, schedulerFrontDoor = false): string {
  if (!schedulerFrontDoor && id.startsWith(SCHEDULER_JOB_PREFIX)) {
    throw new ValidationError([{ path: 'id', message: RESERVED_ID_RULE }])
  }
  return id
}
