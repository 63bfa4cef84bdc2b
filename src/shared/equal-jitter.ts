// Retry delays, exponential in the attempt, capped, with "equal jitter": half the exponential delay is kept, the other
// half is random. The wait never drops below half the schedule (what failed is not hammered), and failures that came
// together spread over the other half instead of retrying in lockstep. Free of units: the scan draws a refused job's
// delay in ms (src/scan/claims/backoff.ts), the consumer toolkit a failed message's in the whole seconds of an SQS visibility
// timeout (src/consumer/backoff.ts); each converts at its own edge.

/** base · 2^(attempt − 1), capped; attempt is 1-based (0, a missing count, is the first). */
export function exponentialDelay(attempt: number, base: number, cap: number): number {
  const exponent = Math.min(Math.max(attempt, 1) - 1, 30) // 2^30 times the base is beyond any cap: avoid Infinity
  return Math.min(cap, base * 2 ** exponent)
}

/** The exponential delay of `attempt`, drawn from its upper half: [d / 2, d]. */
export function equalJitterDelay(attempt: number, base: number, cap: number, random: () => number = Math.random) {
  const full = exponentialDelay(attempt, base, cap)
  return full / 2 + random() * (full / 2)
}
