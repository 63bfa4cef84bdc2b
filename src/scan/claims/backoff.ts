// When a job SQS refused is tried again: exponential in its dispatch attempt, capped, with jitter, so the jobs of one
// outage do not all come back in the same millisecond and hit SQS (or a throttled queue) as one wave again.
import { equalJitterDelay } from '../../equal-jitter'
import type { ClaimedJob } from './claimed-job'

export interface BackoffOptions {
  backoffBaseMs: number
  backoffMaxMs: number
}

/** "Equal jitter" (src/equal-jitter.ts), in whole ms. */
export function retryDelayMs(attempt: number, options: BackoffOptions, random: () => number = Math.random): number {
  return Math.round(equalJitterDelay(attempt, options.backoffBaseMs, options.backoffMaxMs, random))
}

/** One delay per refused job, drawn once: a job that others are held behind must give them the same figure. */
const drawn = new WeakMap<ClaimedJob, number>()

export function delayOf(job: ClaimedJob, options: BackoffOptions): number {
  let delay = drawn.get(job)
  if (delay === undefined) {
    delay = retryDelayMs(job.attempt, options)
    drawn.set(job, delay)
  }
  return delay
}

/**
 * A FIFO job held back behind an earlier one of its group (src/scan/dispatch/dispatcher.ts) comes back `place` ms after it:
 * claims take retries in retry-time order, so the group goes out in its order again.
 */
export function heldBackDelay(after: { job: ClaimedJob; place: number }, options: BackoffOptions): number {
  return delayOf(after.job, options) + after.place
}
