// What flow control names and accepts (docs/flow-control.md): flow keys, the names settings are kept under, and a
// rate's bounds. The HTTP API, the direct client and `sdq` validate with these, so they accept the same things.
import { z } from 'zod'

/**
 * A flow key: like a FIFO group id, printable ASCII without spaces (the record keeps it after the group id, a space
 * between: src/store/record.ts groupLine).
 */
export const FLOW_KEY_PATTERN = /^[\x21-\x7e]{1,128}$/
export const FLOW_KEY_RULE = 'must be 1-128 printable ASCII characters without spaces'
export const flowKeySchema = z.string({ error: FLOW_KEY_RULE }).regex(FLOW_KEY_PATTERN, { error: FLOW_KEY_RULE })

/** Most jobs a second one key may be given: above it, a rate limits nothing a scanner could send anyway. */
export const MAX_RATE = 100_000
/**
 * Fewest jobs a second a key may be given (one every 11.6 days): a held job's time is a whole number of ms in Redis's
 * scripts, and a rate below this runs each shard's share of it past what they can hold over a backlog.
 */
export const MIN_RATE = 0.000_001
/** Largest burst: a burst is sent at once, and a key's held jobs are never more ahead of their rate than this. */
export const MAX_BURST = 100_000

export const RATE_RULE = `must be a number of jobs per second >= ${MIN_RATE} and <= ${MAX_RATE}`
export const BURST_RULE = `must be an integer >= 1 and <= ${MAX_BURST}`

const PAUSED_RULE = 'must be true (pause) or false (resume)'

/** A change of one queue's or key's settings (PUT /flow/queues/{queue}, /flow/keys/{key}): what it leaves out stays. */
export const flowSettingInputSchema = z.strictObject({
  paused: z.boolean({ error: PAUSED_RULE }).optional(),
  /** Jobs per second; null removes the rate. */
  rate: z
    .number({ error: `${RATE_RULE}, or null to remove it` })
    .min(MIN_RATE, { error: RATE_RULE })
    .max(MAX_RATE, { error: RATE_RULE })
    .nullable()
    .optional(),
  /** Jobs that may leave at once after a quiet spell; with a rate only. Default: a tenth of a second's worth. */
  burst: z
    .number({ error: BURST_RULE })
    .int({ error: BURST_RULE })
    .min(1, { error: BURST_RULE })
    .max(MAX_BURST, { error: BURST_RULE })
    .optional(),
})

export type FlowSettingInput = z.input<typeof flowSettingInputSchema>

/** The burst a rate gets when none is given: 100 ms worth of jobs, at least 1. */
export function defaultBurst(rate: number): number {
  return Math.max(1, Math.round(rate / 10))
}

export interface FlowRate {
  /** Jobs per second. */
  rate: number
  /** Jobs that may leave at once after a quiet spell (default 1: evenly spaced). */
  burst: number
}

/**
 * What flow control can act on: a target queue, a flow key, or a tag (src/direct/tag-rules.ts). A tag is paused and
 * resumed only: a job holds up to 10 tags, and a rate per tag would have it take tokens from several buckets.
 */
export type FlowTarget = { queue: string } | { flowKey: string } | { tag: string }

/** The name a target's settings and held jobs are kept under: "q:<queue>", "k:<flow key>" or "t:<tag>". */
export function flowName(target: FlowTarget): string {
  if ('queue' in target) return `q:${target.queue}`
  return 'flowKey' in target ? `k:${target.flowKey}` : `t:${target.tag}`
}

/** A name's target (flowName), undefined for a field that names none. */
export function flowTarget(name: string): FlowTarget | undefined {
  if (name.startsWith('q:')) return { queue: name.slice(2) }
  if (name.startsWith('k:')) return { flowKey: name.slice(2) }
  if (name.startsWith('t:')) return { tag: name.slice(2) }
  return undefined
}
