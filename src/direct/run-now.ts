// The input of "run now every pending job due before a time" (POST /jobs/run-due, DelayQueue.runDue, `sdq run-due`):
// one schema, so the API and the direct class accept and refuse the same things.
import { z } from 'zod'
import type { Config } from '../config'
import { ValidationError, type ErrorDetail } from '../errors'
import { parseIsoWithZone } from './validation'

const BEFORE_RULE = 'must be an ISO-8601 time with a zone, or an integer epoch ms'
const FIELDS = ['before', 'queue', 'cursor'] as const

export const runDueInputSchema = z.strictObject({
  /** Jobs due before this time (exclusive): ISO-8601 with a zone, or epoch ms. */
  before: z.union([z.string(), z.number()], { error: (i) => (i.input === undefined ? 'is required' : BEFORE_RULE) }),
  /** Only this queue's jobs. */
  queue: z.string({ error: 'must be a string naming a configured queue' }).optional(),
  /** Where the previous answer stopped (its `cursor`). */
  cursor: z.string({ error: 'must be the cursor of the previous answer' }).max(40).optional(),
})

export type RunDueInput = z.input<typeof runDueInputSchema>

export interface RunDueRequest {
  beforeMs: number
  queue?: string
  cursor?: string
}

/** Throws ValidationError naming each bad field. */
export function validateRunDue(input: unknown, config: Pick<Config, 'queues'>): RunDueRequest {
  const parsed = runDueInputSchema.safeParse(input)
  if (!parsed.success) throw new ValidationError(parsed.error.issues.flatMap(details))
  const { before, queue, cursor } = parsed.data
  const beforeMs = typeof before === 'number' ? before : parseIsoWithZone(before)
  const fails: ErrorDetail[] = []
  if (beforeMs === undefined || !Number.isSafeInteger(beforeMs) || beforeMs < 0) {
    fails.push({ path: 'before', message: BEFORE_RULE })
  }
  if (queue !== undefined && !Object.hasOwn(config.queues, queue)) {
    const known = Object.keys(config.queues).map((q) => JSON.stringify(q))
    fails.push({ path: 'queue', message: `must be one of the configured queues: ${known.join(', ')}` })
  }
  if (fails.length) throw new ValidationError(fails)
  return { beforeMs: beforeMs!, ...(queue !== undefined ? { queue } : {}), ...(cursor ? { cursor } : {}) }
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
