// When a job SQS refused is tried again: exponential in its dispatch attempt, capped, with jitter, so the jobs of one
// outage do not all come back in the same millisecond and hit SQS (or a throttled queue) as one wave again.
import type { ClaimedJob } from './claimed-job'

export interface BackoffOptions {
  backoffBaseMs: number
  backoffMaxMs: number
}

/**
 * "Equal jitter": half the exponential delay is kept, the other half is random. The wait never drops below half the
 * schedule (a refused job is not hammered), and jobs refused together spread over the other half.
 */
export function retryDelayMs(attempt: number, options: BackoffOptions, random: () => number = Math.random): number {
  const exponential = Math.min(options.backoffMaxMs, options.backoffBaseMs * 2 ** (Math.min(attempt, 40) - 1))
  return Math.round(exponential / 2 + (random() * exponential) / 2)
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
