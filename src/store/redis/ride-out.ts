// Riding out a Redis Cluster that refuses a command without running it: a slot on the move (MOVED, ASK, TRYAGAIN),
// a master failing over (CLUSTERDOWN), a newly promoted master that has not loaded our scripts (NOSCRIPT), or
// ioredis giving up after following too many of these ("Too many Cluster redirections"). None of them ran the
// command, so sending it again is safe for every script, writes included. The Redis Cluster specification says to
// retry TRYAGAIN after a while; ioredis does so for single commands, but only ~16 times 100 ms, and never inside a
// pipeline whose commands did not all fail alike. So the store retries, with backoff, for a bounded time.
import type { Cluster } from 'ioredis'
import type { RedisClient } from '../scripts'

/** How long a call keeps trying while its slot moves or its master fails over, before it answers 503. */
export const RIDE_OUT_MS = 5_000

const NOT_RUN = /^(TRYAGAIN|MOVED|ASK|NOSCRIPT|CLUSTERDOWN)\b|^Too many Cluster redirections/

/** The reply says the command did not run (and may a moment later, or on another master). */
export function notRun(error: unknown): error is Error {
  return error instanceof Error && NOT_RUN.test(error.message)
}

export class RideOut {
  private readonly deadline: number
  private tries = 0

  constructor(
    private readonly redis: RedisClient,
    budgetMs = RIDE_OUT_MS,
  ) {
    this.deadline = Date.now() + budgetMs
  }

  /** After a refusal that did not run the command: waits, and says whether to try again (false: time is up). */
  async again(error: Error): Promise<boolean> {
    if (Date.now() >= this.deadline) return false
    this.tries++
    // A missing script is loaded by the next try itself (EVAL): no reason to wait.
    if (/^NOSCRIPT/.test(error.message) && this.tries === 1) return true
    // MOVED inside a pipeline: ioredis did not update its slot map, so the next try would go to the same node.
    if (/^MOVED/.test(error.message) && (this.redis as { isCluster?: boolean }).isCluster) {
      await new Promise<void>((ok) => (this.redis as Cluster).refreshSlotsCache(() => ok()))
    }
    const delay = Math.min(25 * 2 ** Math.min(this.tries - 1, 5), 500, Math.max(0, this.deadline - Date.now()))
    await new Promise((r) => setTimeout(r, delay))
    return true
  }
}

/** `attempt` until it succeeds, fails otherwise, or has been refused unrun for RIDE_OUT_MS. */
export async function rideOut<T>(redis: RedisClient, attempt: () => Promise<T>, budgetMs?: number): Promise<T> {
  const ride = new RideOut(redis, budgetMs)
  for (;;) {
    try {
      return await attempt()
    } catch (e) {
      if (!notRun(e) || !(await ride.again(e))) throw e
    }
  }
}
