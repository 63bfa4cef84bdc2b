// When a job SQS refused is tried again: exponential in its dispatch attempt, capped, with jitter, so the jobs of one
// outage do not all come back in the same millisecond and hit SQS (or a throttled queue) as one wave again.
import { equalJitterDelay } from '../../shared/equal-jitter'
import type { ClaimedJob } from './claimed-job'

export interface BackoffOptions {
  backoffBaseMs: number
  backoffMaxMs: number
}

/** "Equal jitter" (src/shared/equal-jitter.ts), in whole ms. */
export function retryDelayMs(attempt: number, options: BackoffOptions, random: () => number = Math.random): number {
  return Math.round(equalJitterDelay(attempt, options.backoffBaseMs, options.backoffMaxMs, random))
}

/** One delay per refused job, drawn once: a job that others are held behind must give them the same figure. */
const drawn = new WeakMap<ClaimedJob, number>()

/**
 * A refused job's retry delay: its attempt's backoff, or its hold when longer (a send that may have reached SQS is
 * not repeated sooner than SQS's slow answers justify: src/scan/dispatch/send-pace.ts).
 */
export function delayOf(job: ClaimedJob, options: BackoffOptions): number {
  let delay = drawn.get(job)
  if (delay === undefined) {
    delay = Math.max(retryDelayMs(job.attempt, options), job.holdMs ?? 0)
    drawn.set(job, delay)
  }
  return delay
}

/** One retry time per refused job (Redis ms), fixed when first asked for: the jobs held behind it count from it. */
const fixed = new WeakMap<ClaimedJob, number>()

/**
 * When a refused job is tried again, on Redis's clock: `redisNowMs` (the scanner's reading of it) + its delay, fixed
 * the first time it is asked for. Absolute, and fixed once on one clock, not counted from each shard's release
 * script: a FIFO group's retries are released by several calls, on several shards (and masters), and their retry
 * times are their order (src/scan/loop/fifo-merge.ts).
 */
export function retryAtOf(job: ClaimedJob, options: BackoffOptions, redisNowMs: number): number {
  let at = fixed.get(job)
  if (at === undefined) {
    at = Math.round(redisNowMs) + delayOf(job, options)
    fixed.set(job, at)
  }
  return at
}

/**
 * A FIFO job held back behind an earlier one of its group (src/scan/dispatch/lane.ts) comes back `place` ms after
 * that one's retry time, whenever and on whichever shard it is released: claims take retries in retry-time order and
 * the FIFO merge sends them in it, so the group goes out in its order again.
 */
export function heldBackAt(
  after: { job: ClaimedJob; place: number },
  options: BackoffOptions,
  redisNowMs: number,
): number {
  return retryAtOf(after.job, options, redisNowMs) + after.place
}
