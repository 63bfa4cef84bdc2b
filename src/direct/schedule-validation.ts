// Turns raw schedule input (PUT /schedules/{id} bodies, DelayQueue.putSchedule) into a stored spec, with every rule
// in one place. Field shapes are zod schemas; the cron expression, zone and time rules come after.
import { z } from 'zod'
import type { Config } from '../config'
import { isFifoQueue } from '../queues'
import { PayloadTooLargeError, ValidationError, type ErrorDetail } from '../errors'
import { occurrenceId } from '../recurrence/occurrence-id'
import { cronProblems, isTimeZone, nextOccurrence } from '../recurrence/recurrence'
import { MAX_EVERY_MS, MAX_SCHEDULE_TIME_ISO, MAX_SCHEDULE_TIME_MS } from '../recurrence/time-bounds'
import { expectedMessageBytes } from '../sqs/envelope'
import { checkHttpJob } from '../http-target/job-check'
import type { NewSchedule } from '../store/schedule-store'
import { validateScheduleId } from './id-rules'
import { tagsSchema } from './tag-rules'
import { parseIsoWithZone, serializePayload, sharedFields } from './validation'
import type { ScheduleInput } from '../contract/schedule'

export const MIN_EVERY_MS = 1000
const FIELDS = [
  'queue',
  'payload',
  'cron',
  'everyMs',
  'timezone',
  'startAt',
  'endAt',
  'paused',
  'groupId',
  'tags',
] as const
const TIME_RULE = 'must be an ISO-8601 time with a zone (e.g. 2027-01-04T09:00:00Z), or an integer epoch ms'
const TIME_BOUND_RULE = `must be at most ${MAX_SCHEDULE_TIME_ISO} (epoch ms ${MAX_SCHEDULE_TIME_MS})`
const EVERY_RULE = `must be an integer from ${MIN_EVERY_MS} to ${MAX_EVERY_MS} (3650 days)`

const time = z.union([z.string(), z.number()], { error: TIME_RULE }).optional()

export const scheduleInputSchema = z.strictObject({
  queue: sharedFields.queue,
  payload: sharedFields.payload,
  cron: z.string({ error: 'must be a string: 5 cron fields, or 6 with seconds first' }).optional(),
  everyMs: z
    .number({ error: EVERY_RULE })
    .int({ error: EVERY_RULE })
    .min(MIN_EVERY_MS, { error: EVERY_RULE })
    .max(MAX_EVERY_MS, { error: EVERY_RULE })
    .optional(),
  timezone: z.string({ error: 'must be an IANA time zone name, e.g. Europe/Berlin' }).optional(),
  startAt: time,
  endAt: time,
  paused: z.boolean({ error: 'must be true or false' }).optional(),
  groupId: sharedFields.groupId,
  tags: tagsSchema,
})

/** What callers send: see docs/schedules.md, "Input" (test/api/public-types.test.ts holds it equal to the schema's). */
export type { ScheduleInput }

export type ScheduleValidationConfig = Pick<Config, 'queues' | 'maxMessageBytes'> & Partial<Pick<Config, 'httpTargets'>>

/** Validate one schedule. Throws ValidationError naming every bad field, or PayloadTooLargeError. */
export function validateSchedule(id: string, input: unknown, config: ScheduleValidationConfig): NewSchedule {
  validateScheduleId(id)
  const parsed = scheduleInputSchema.safeParse(input)
  if (!parsed.success) throw new ValidationError(parsed.error.issues.flatMap(toDetails))
  const raw = parsed.data
  const details: ErrorDetail[] = []
  const fail = (path: string, message: string) => details.push({ path, message })

  if (!Object.hasOwn(config.queues, raw.queue)) {
    const known = Object.keys(config.queues).map((q) => JSON.stringify(q))
    fail('queue', `must be one of the configured queues: ${known.join(', ')}`)
  } else if (raw.groupId !== undefined && !isFifoQueue(raw.queue)) {
    fail('groupId', `is only allowed for FIFO queues (names ending in .fifo); "${raw.queue}" is a standard queue`)
  }
  const timezone = raw.timezone ?? 'UTC'
  if (!isTimeZone(timezone))
    fail('timezone', 'must be an IANA time zone name the runtime knows, e.g. Europe/Berlin or UTC')
  if ((raw.cron === undefined) === (raw.everyMs === undefined)) {
    fail(raw.cron === undefined ? 'cron' : 'everyMs', 'give exactly one of cron and everyMs')
  } else if (raw.cron !== undefined && isTimeZone(timezone)) {
    details.push(...cronProblems(raw.cron, timezone))
  }
  const startAtMs = timeOf('startAt', raw.startAt, fail)
  const endAtMs = timeOf('endAt', raw.endAt, fail)
  if (startAtMs !== undefined && endAtMs !== undefined && endAtMs < startAtMs)
    fail('endAt', 'must not be before startAt')
  // Each occurrence is a job of the queue: on an HTTP target queue, a request the forwarder could not make is a 400 now.
  checkHttpJob(raw.queue, raw.payload, config.httpTargets, fail)
  const payloadJson = serializePayload(raw.payload, fail)
  if (details.length === 0 && raw.cron !== undefined && startAtMs !== undefined) {
    // A rule whose first run after startAt lies beyond the time bound would be stored with nothing to run, ever.
    const first = nextOccurrence({ cron: raw.cron, timezone, startAtMs }, startAtMs - 1)
    if (first === null) fail('startAt', `leaves the cron rule no run at or before ${MAX_SCHEDULE_TIME_ISO}`)
  }
  if (details.length > 0) throw new ValidationError(details)

  // The largest occurrence id this schedule's jobs will carry (every time is below MAX_SCHEDULE_TIME_MS).
  const bytes = expectedMessageBytes(occurrenceId(id, MAX_SCHEDULE_TIME_MS), raw.queue, payloadJson!, {
    tags: raw.tags,
  })
  if (bytes > config.maxMessageBytes) throw new PayloadTooLargeError(bytes, config.maxMessageBytes)
  return {
    id,
    payloadJson: payloadJson!,
    spec: {
      queue: raw.queue,
      ...(raw.cron !== undefined ? { cron: raw.cron.trim().split(/\s+/).join(' ') } : { everyMs: raw.everyMs! }),
      timezone,
      ...(startAtMs !== undefined ? { startAtMs } : {}),
      ...(endAtMs !== undefined ? { endAtMs } : {}),
      paused: raw.paused ?? false,
      ...(raw.groupId !== undefined ? { groupId: raw.groupId } : {}),
      ...(raw.tags?.length ? { tags: raw.tags } : {}),
    },
  }
}

function timeOf(path: string, value: string | number | undefined, fail: (p: string, m: string) => void) {
  if (value === undefined) return undefined
  const ms = typeof value === 'number' ? value : parseIsoWithZone(value)
  if (ms === undefined || !Number.isSafeInteger(ms) || ms < 0) {
    fail(path, TIME_RULE)
    return undefined
  }
  if (ms > MAX_SCHEDULE_TIME_MS) {
    fail(path, TIME_BOUND_RULE)
    return undefined
  }
  return ms
}

function toDetails(issue: z.core.$ZodIssue): ErrorDetail[] {
  if (issue.code === 'unrecognized_keys') {
    return issue.keys.slice(0, 10).map((key) => ({
      path: key.length > 64 ? `${key.slice(0, 64)}...` : key,
      message: `is not a known field; known: ${FIELDS.join(', ')}`,
    }))
  }
  if (issue.code === 'invalid_type' && issue.path.length === 0) {
    return [{ path: '', message: 'must be a JSON object: { "queue", "payload", "cron" | "everyMs", "timezone", ... }' }]
  }
  return [{ path: issue.path.map(String).join('.'), message: issue.message }]
}
