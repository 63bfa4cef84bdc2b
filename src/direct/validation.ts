// Turns raw job input (HTTP bodies, or objects from applications that enqueue directly) into the store's NewJob.
// Every rule lives here, so the HTTP API and src/direct/delay-queue.ts accept and refuse exactly the same things.
// Field shapes are zod schemas; rules that need configuration, the clock or more than one field come after.
import { z } from 'zod'
import type { Config } from '../config'
import { isFifoQueue } from '../queues'
import { expectedMessageBytes } from '../sqs/envelope'
import { PayloadTooLargeError, ValidationError, type ErrorDetail } from '../errors'
import { newJobId } from '../store/ids'
import { GROUP_ID_PATTERN, GROUP_ID_RULE, JOB_ID_PATTERN, JOB_ID_RULE } from '../contract/ids'
import { tagsSchema } from './tag-rules'
import { conflictFields, conflictRules } from './conflict-rules'
import { flowKeySchema } from '../flow/flow-names'
import type { NewJob } from '../store/job-store'
import { isoTime } from '../shared/iso-time'
import { checkHttpJob } from '../http-target/job-check'
import { toDetails } from './issue-details'
import type { JobInput } from '../contract/job'

export const MAX_BATCH_JOBS = 100
const FIELDS = [
  'queue',
  'payload',
  'delayMs',
  'runAt',
  'id',
  'groupId',
  'flowKey',
  'tags',
  'onConflict',
  'maxWaitMs',
] as const

export type JobValidationConfig = Pick<Config, 'queues' | 'maxHorizonMs' | 'maxMessageBytes' | 'httpTargets'>

export interface ValidateOptions {
  /** The id from the URL (PUT /jobs/{id}, reschedule): a body id must match it. */
  id?: string
  /** Epoch ms used for the horizon check of `runAt` (tests pin it). */
  nowMs?: number
}

// Messages say what the field must be, with the field named by `path`: "delayMs: must be an integer >= 0".
const required = (what: string) => (issue: { input?: unknown }) => (issue.input === undefined ? 'is required' : what)

/** The fields a job and a schedule share, with the same rules and messages (src/direct/schedule-validation.ts). */
export const sharedFields = {
  queue: z.string({ error: required('must be a string naming a configured queue') }),
  payload: z.unknown().refine((v) => v !== undefined, { error: 'is required (any JSON value, null included)' }),
  groupId: z.string({ error: GROUP_ID_RULE }).regex(GROUP_ID_PATTERN, { error: GROUP_ID_RULE }).optional(),
}

export const jobInputSchema = z.strictObject({
  queue: sharedFields.queue,
  payload: sharedFields.payload.meta({
    description:
      'any JSON value; on an HTTP target queue (HTTP_TARGETS) the request to make: an HttpRequest (docs/http-targets.md)',
  }),
  delayMs: z
    .number({ error: 'must be an integer >= 0' })
    .int({ error: 'must be an integer >= 0' })
    .min(0, { error: 'must be an integer >= 0' })
    .optional(),
  /** ISO-8601 with a zone, or epoch ms. */
  runAt: z
    .union([z.string(), z.number()], { error: 'must be an ISO-8601 time with a zone, or an integer epoch ms' })
    .optional(),
  id: z.string({ error: JOB_ID_RULE }).regex(JOB_ID_PATTERN, { error: JOB_ID_RULE }).optional(),
  groupId: sharedFields.groupId,
  flowKey: flowKeySchema.optional(),
  tags: tagsSchema,
  ...conflictFields,
})

/** What callers send: the job input of docs/api.md (test/api/public-types.test.ts holds it equal to the schema's). */
export type { JobInput }

type RawJob = z.infer<typeof jobInputSchema>

/** Validate one job. Throws ValidationError (400) naming every bad field, or PayloadTooLargeError (413). */
export function validateJob(input: unknown, config: JobValidationConfig, options: ValidateOptions = {}): NewJob {
  const parsed = jobInputSchema.safeParse(input)
  if (!parsed.success) throw new ValidationError(parsed.error.issues.flatMap((issue) => toDetails(issue, FIELDS)))
  const raw: RawJob = parsed.data
  const details: ErrorDetail[] = []
  const fail = (path: string, message: string) => details.push({ path, message })

  // Own keys only: a plain-object config would otherwise accept "constructor" or "toString" as a queue.
  const known = Object.keys(config.queues)
  if (!Object.hasOwn(config.queues, raw.queue)) {
    fail('queue', `must be one of the configured queues: ${known.map((q) => JSON.stringify(q)).join(', ')}`)
  } else if (raw.groupId !== undefined && !isFifoQueue(raw.queue)) {
    fail('groupId', `is only allowed for FIFO queues (names ending in .fifo); "${raw.queue}" is a standard queue`)
  }

  if (options.id !== undefined && raw.id !== undefined && raw.id !== options.id) {
    fail('id', `must match the id in the path ("${options.id}") or be left out`)
  }

  conflictRules(raw, config.maxHorizonMs, fail)
  const due = dueOf(raw, config.maxHorizonMs, options.nowMs ?? Date.now(), fail)
  checkHttpJob(raw.queue, raw.payload, config.httpTargets, fail)
  const payloadJson = serializePayload(raw.payload, fail)
  if (details.length > 0) throw new ValidationError(details)

  const id = options.id ?? raw.id ?? newJobId()
  // The message carries the tags and the flow key too (src/sqs/envelope.ts): they count toward its size.
  const bytes = expectedMessageBytes(id, raw.queue, payloadJson!, { tags: raw.tags, flowKey: raw.flowKey })
  if (bytes > config.maxMessageBytes) throw new PayloadTooLargeError(bytes, config.maxMessageBytes)
  return {
    id,
    queue: raw.queue,
    payloadJson: payloadJson!,
    ...(raw.groupId ? { groupId: raw.groupId } : {}),
    ...(raw.flowKey ? { flowKey: raw.flowKey } : {}),
    ...(raw.tags?.length ? { tags: raw.tags } : {}),
    ...(raw.onConflict ? { onConflict: raw.onConflict } : {}),
    ...(raw.maxWaitMs !== undefined ? { maxWaitMs: raw.maxWaitMs } : {}),
    due: due!,
  }
}

/** The envelope of POST /jobs/batch: `{ "jobs": [ ...up to 100 ] }`. Items are validated one by one later. */
export function validateBatch(body: unknown): unknown[] {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw new ValidationError([{ path: '', message: 'must be an object: { "jobs": [ ... ] }' }])
  }
  const details: ErrorDetail[] = Object.keys(body)
    .filter((k) => k !== 'jobs')
    .map((k) => ({ path: k, message: 'is not a known field (known: jobs); a single job goes to POST /jobs' }))
  const jobs = (body as { jobs?: unknown }).jobs
  if (!Array.isArray(jobs)) {
    details.push({ path: 'jobs', message: jobs === undefined ? 'is required' : 'must be an array of jobs' })
  }
  if (details.length || !Array.isArray(jobs)) throw new ValidationError(details)
  if (jobs.length > MAX_BATCH_JOBS) {
    throw new ValidationError([
      { path: 'jobs', message: `must hold at most ${MAX_BATCH_JOBS} jobs, got ${jobs.length}` },
    ])
  }
  return jobs
}

/** When the job is due: delayMs or runAt as the store takes it (none: now). */
function dueOf(
  raw: RawJob,
  horizonMs: number,
  nowMs: number,
  fail: (path: string, message: string) => void,
): NewJob['due'] | undefined {
  const days = Math.round(horizonMs / 86_400_000)
  if (raw.delayMs !== undefined && raw.runAt !== undefined) {
    fail('runAt', 'cannot be combined with delayMs: give one of them, or neither to run now')
    return undefined
  }
  if (raw.delayMs !== undefined) {
    if (raw.delayMs > horizonMs) fail('delayMs', `must be at most ${horizonMs} (the ${days}-day horizon)`)
    return { delayMs: raw.delayMs === 0 ? 0 : raw.delayMs } // -0 would reach Redis as "-0"
  }
  if (raw.runAt === undefined) return { delayMs: 0 }
  const atMs = typeof raw.runAt === 'number' ? raw.runAt : parseIsoWithZone(raw.runAt)
  if (atMs === undefined || !Number.isSafeInteger(atMs) || atMs < 0) {
    fail(
      'runAt',
      typeof raw.runAt === 'number'
        ? 'must be an integer epoch ms >= 0'
        : 'must be an ISO-8601 time with a zone, e.g. 2027-01-04T09:00:00Z or 2027-01-04T10:00:00+01:00',
    )
    return undefined
  }
  // Epoch seconds given as runAt would read as a moment of January 1970 and run at once: no caller means a time in
  // 1970-1973 (below 1e11 ms), so such a number is refused, naming the unit (0, "the epoch", still means now).
  if (typeof raw.runAt === 'number' && atMs > 0 && atMs < SECONDS_LIKE_BELOW_MS) {
    fail('runAt', `looks like epoch seconds: runAt takes epoch milliseconds (${atMs} s would be ${atMs * 1000})`)
    return undefined
  }
  // The caller's clock may be a little off: the horizon is a limit, not a precision tool.
  if (atMs > nowMs + horizonMs)
    fail('runAt', `must be within the ${days}-day horizon (before ${isoTime(nowMs + horizonMs)})`)
  return { atMs }
}

/** 1e11 ms is March 1973; epoch seconds stay below it until the year 5138. */
const SECONDS_LIKE_BELOW_MS = 1e11

const ISO =
  /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?(?:([Zz])|([+-])(\d{2})(?::?(\d{2}))?)$/

/** ISO-8601 date-time with a mandatory zone (Z or an offset) -> epoch ms; undefined when not a real time. */
export function parseIsoWithZone(text: string): number | undefined {
  const m = ISO.exec(text)
  if (!m) return undefined
  const [year, month, day, hour, minute, second] = [1, 2, 3, 4, 5, 6].map((i) => Number(m[i] ?? 0)) as number[]
  const ms = Number((m[7] ?? '').padEnd(3, '0').slice(0, 3))
  const offsetMin = m[8] ? 0 : (m[9] === '-' ? -1 : 1) * (Number(m[10]) * 60 + Number(m[11] ?? 0))
  if (month! < 1 || month! > 12 || hour! > 23 || minute! > 59 || second! > 59) return undefined
  if (Math.abs(offsetMin) > 18 * 60 || Number(m[11] ?? 0) > 59) return undefined
  const utc = Date.UTC(year!, month! - 1, day!, hour!, minute!, second!, ms)
  // Date.UTC rolls Feb 30 over into March: reject days the month does not have.
  if (new Date(utc).getUTCDate() !== day || year! < 1000) return undefined
  return utc - offsetMin * 60_000
}

/** Deeper payloads are refused: consumers' JSON parsers (and JSON.stringify itself) recurse per level. */
export const MAX_PAYLOAD_DEPTH = 100

/**
 * JSON text of the payload. Refused: values JSON cannot carry (functions, BigInt, cycles), non-finite numbers
 * (JSON.stringify would silently turn them into null), nesting deeper than MAX_PAYLOAD_DEPTH, and `__proto__` /
 * `constructor.prototype` keys, which could pollute prototypes in consumers that merge payloads into objects.
 */
export function serializePayload(payload: unknown, fail: (path: string, message: string) => void): string | undefined {
  const tooDeep = `must not nest deeper than ${MAX_PAYLOAD_DEPTH} levels`
  let json: string | undefined
  try {
    json = JSON.stringify(payload)
  } catch (e) {
    if (e instanceof RangeError)
      fail('payload', tooDeep) // the stack ran out: far deeper than the limit
    else fail('payload', `must be a JSON value (${e instanceof Error ? e.message : String(e)})`)
    return undefined
  }
  if (json === undefined) {
    fail('payload', 'must be a JSON value')
    return undefined
  }
  // Iterative walk, so no depth can overflow the stack here. No cycles: stringify passed.
  const stack: [unknown, string, number][] = [[payload, 'payload', 0]]
  while (stack.length) {
    const [value, path, depth] = stack.pop()!
    if (typeof value === 'number' && !Number.isFinite(value)) {
      fail(path, 'must be a finite number')
    } else if (
      value !== null &&
      typeof value === 'object' &&
      typeof (value as { toJSON?: unknown }).toJSON !== 'function'
    ) {
      if (depth >= MAX_PAYLOAD_DEPTH) {
        fail('payload', tooDeep)
        return undefined
      }
      for (const key of Object.keys(value)) {
        const child = (value as Record<string, unknown>)[key]
        const childPath = Array.isArray(value) ? `${path}[${key}]` : `${path}.${key}`
        if (key === '__proto__') fail(childPath, 'is not allowed (prototype pollution guard)')
        else if (
          key === 'constructor' &&
          child !== null &&
          typeof child === 'object' &&
          Object.hasOwn(child, 'prototype')
        ) {
          fail(`${childPath}.prototype`, 'is not allowed (prototype pollution guard)')
        } else stack.push([child, childPath, depth + 1])
      }
    }
  }
  return json
}
