// Run now, for DelayQueue (and so the API, `sdq` and the dashboard): one job (runNow), or every pending job due before
// a time (runDue, whose input schema is here: the API and the direct class accept and refuse the same things). The
// store does the moving (src/store/promote.ts); in on-demand scan mode a scanner is started for what is due now.
import { z } from 'zod'
import type { Config } from '../config'
import { JobHeldError, ValidationError, type ErrorDetail } from '../errors'
import { withHeldReason } from '../flow/flow-held-view'
import type { JobStore } from '../store/job-store'
import { type MoveTo, Promoter, type PromoteDueResult } from '../store/promote'
import { promoteByTag } from '../store/tag-promote'
import { isoTime } from '../shared/iso-time'
import { validateJobRef } from './id-rules'
import type { ScanStarter } from '../on-demand/start/scan-starter'
import { TAG_PATTERN, TAG_RULE } from './tag-rules'
import { parseIsoWithZone } from './validation'

/** Run now's answer: the job is due at `runAt` (now); it was due at `previousRunAt` (the same when due already). */
export interface RunNowAnswer {
  id: string
  runAt: string
  previousRunAt: string
}

/**
 * Run now, or (the dashboard's reschedule) move to `to`: only the due time changes; a job waiting for a dispatch retry
 * is retried now. Throws JobNotFoundError, JobDispatchingError (a scanner holds it), JobHeldError (flow control holds
 * it: which pause or rate, in its message), or JobDeadError (the dead set retries it).
 */
export async function runNow(
  store: JobStore,
  starter: ScanStarter | undefined,
  id: string,
  to: MoveTo = { now: true },
): Promise<RunNowAnswer> {
  const p = await new Promoter(store).promote(validateJobRef(id), to).catch(async (e) => {
    throw e instanceof JobHeldError ? new JobHeldError(e.jobId, await heldWhy(store, e.jobId)) : e
  })
  // On-demand scan mode: a job due now needs a running scanner, as a new job due now does. Also one that was due
  // already: its own start may have given up, or this is a retry of a run now whose answer (and start) was lost.
  // Moved to a time within the horizon, it needs one as an enqueue for that time does.
  if ('now' in to) await starter?.afterRunNow(`${p.id}@${p.runAtMs}`, { jobId: p.id })
  else await starter?.afterSchedule(p.id, p.runAtMs)
  return { id: p.id, runAt: isoTime(p.runAtMs), previousRunAt: isoTime(p.previousRunAtMs) }
}

/** What holds a held job, in words: which pause, or which rate until when (its view's `held`). */
async function heldWhy(store: JobStore, id: string): Promise<string | undefined> {
  const view = await store.get(id)
  const held = view && (await withHeldReason(store.redis, store.keys, view)).held
  if (!held) return undefined
  const target =
    'tag' in held ? `tag "${held.tag}"` : 'flowKey' in held ? `flow key "${held.flowKey}"` : `queue "${held.queue}"`
  return held.reason === 'paused' ? `${target} is paused` : `the rate of ${target}, until ${held.until}`
}

/** With `tag`: `inFlight` counts the jobs of the tag whose dispatch is under way (not moved). */
export type RunDueResult = PromoteDueResult & { inFlight?: number }

/**
 * `maxRuns` script runs (default: until done), then the answer with the `cursor` to go on from (null when done). Jobs
 * scheduled behind the walk while it runs are left as they are. Throws ValidationError naming the field.
 */
export async function runDue(
  on: { store: JobStore; starter?: ScanStarter; config: Pick<Config, 'queues'> },
  input: unknown,
  options: { maxRuns?: number } = {},
): Promise<RunDueResult> {
  const request = validateRunDue(input, on.config)
  const { redis, keys, replication } = on.store
  const result: RunDueResult =
    request.tag === undefined
      ? await new Promoter(on.store).promoteDue({ ...request, beforeMs: request.beforeMs!, ...options })
      : await on.store
          .ready()
          .then(() => promoteByTag(redis, keys, replication, request.tag!, { ...request, ...options }))
  // At the walk's end also with nothing moved: a retry of a run-due whose answer (and start) was lost finds its jobs
  // due already, and they would wait for a scheduled run. At most one start: none while a scanner runs.
  if (result.promoted > 0 || result.cursor === null)
    await on.starter?.afterRunNow(`run-due@${Date.now()}`, { runDue: result.promoted })
  return result
}

const BEFORE_RULE = 'must be an ISO-8601 time with a zone, or an integer epoch ms'
const FIELDS = ['before', 'queue', 'tag', 'cursor'] as const

export const runDueInputSchema = z.strictObject({
  /** Jobs due before this time (exclusive): ISO-8601 with a zone, or epoch ms. Optional with `tag` (then: all). */
  before: z.union([z.string(), z.number()], { error: BEFORE_RULE }).optional(),
  /** Only this queue's jobs. */
  queue: z.string({ error: 'must be a string naming a configured queue' }).optional(),
  /** Only the jobs with this tag (not with `queue`). */
  tag: z.string({ error: TAG_RULE }).regex(TAG_PATTERN, { error: TAG_RULE }).optional(),
  /** Where the previous answer stopped (its `cursor`: with `tag`, it holds a job id). */
  cursor: z.string({ error: 'must be the cursor of the previous answer' }).max(200).optional(),
})

export type RunDueInput = z.input<typeof runDueInputSchema>

export interface RunDueRequest {
  /** Absent only with `tag`. */
  beforeMs?: number
  queue?: string
  tag?: string
  cursor?: string
}

/** Throws ValidationError naming each bad field. */
export function validateRunDue(input: unknown, config: Pick<Config, 'queues'>): RunDueRequest {
  const parsed = runDueInputSchema.safeParse(input)
  if (!parsed.success) throw new ValidationError(parsed.error.issues.flatMap(details))
  const { before, queue, tag, cursor } = parsed.data
  const beforeMs = typeof before === 'number' ? before : before === undefined ? undefined : parseIsoWithZone(before)
  const fails: ErrorDetail[] = []
  if (before === undefined && tag === undefined) {
    fails.push({ path: 'before', message: 'is required (or give a tag)' })
  } else if (before !== undefined && (beforeMs === undefined || !Number.isSafeInteger(beforeMs) || beforeMs < 0)) {
    fails.push({ path: 'before', message: BEFORE_RULE })
  }
  if (tag !== undefined && queue !== undefined) {
    fails.push({ path: 'queue', message: 'cannot be combined with tag' })
  }
  if (queue !== undefined && !Object.hasOwn(config.queues, queue)) {
    const known = Object.keys(config.queues).map((q) => JSON.stringify(q))
    fails.push({ path: 'queue', message: `must be one of the configured queues: ${known.join(', ')}` })
  }
  if (fails.length) throw new ValidationError(fails)
  return {
    ...(beforeMs !== undefined ? { beforeMs } : {}),
    ...(queue !== undefined ? { queue } : {}),
    ...(tag !== undefined ? { tag } : {}),
    ...(cursor ? { cursor } : {}),
  }
}

function details(issue: z.core.$ZodIssue): ErrorDetail[] {
  if (issue.code === 'unrecognized_keys') {
    return issue.keys.slice(0, 5).map((key) => ({
      path: key.length > 64 ? `${key.slice(0, 64)}...` : key,
      message: `is not a known field; known: ${FIELDS.join(', ')}`,
    }))
  }
  return [{ path: issue.path.map(String).join('.'), message: issue.message }]
}
