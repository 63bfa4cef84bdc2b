// How long a failed message stays hidden before its next attempt: exponential in the attempt number, capped,
// with "equal jitter" (half fixed, half random) so that a burst of failures does not retry in lockstep while the
// delay never collapses to zero. The rule is src/shared/equal-jitter.ts, shared with the scan's dispatch retries; here
// it counts in seconds, as a visibility timeout does.
import { equalJitterDelay, exponentialDelay } from '../shared/equal-jitter'

export interface BackoffPolicy {
  /** Delay after the first failed attempt, in seconds. */
  baseSeconds: number
  /** Upper bound, in seconds (SQS allows at most 43,200 = 12 h). */
  capSeconds: number
  /** Spread the delay over [d/2, d] (default) or use d exactly. */
  jitter: boolean
}

export const DEFAULT_BACKOFF: BackoffPolicy = { baseSeconds: 5, capSeconds: 900, jitter: true }

/** SQS's maximum visibility timeout. */
export const MAX_VISIBILITY_SECONDS = 43_200

/** Seconds to hide a message whose attempt number `attempt` (its ApproximateReceiveCount, 1-based) just failed. */
export function backoffSeconds(attempt: number, policy: BackoffPolicy, random: () => number = Math.random): number {
  const cap = Math.min(policy.capSeconds, MAX_VISIBILITY_SECONDS)
  const delay = policy.jitter
    ? equalJitterDelay(attempt, policy.baseSeconds, cap, random)
    : exponentialDelay(attempt, policy.baseSeconds, cap)
  // Visibility timeouts are whole seconds: round up so the delay is never shorter than designed.
  return Math.min(cap, Math.max(0, Math.ceil(delay)))
}
