// The offset between this process's clock and Redis's. Due times are on Redis's clock; the scanner sleeps on its
// own, so it converts. NTP-style: the sample with the smallest round trip bounds the error by half that trip.

const SAMPLE_TTL_MS = 30_000

/** Redis's TIME and Date.now() are whole milliseconds each: two samples of one clock may disagree by this much. */
const ROUNDING_MS = 2

export class RedisClock {
  private offsetMs = 0
  private bestRttMs = Infinity
  private bestAt = 0

  /** Record one exchange: local time before and after a call that reported Redis's time. */
  observe(redisNowMs: number, sentAtMs: number, receivedAtMs: number): void {
    const rtt = receivedAtMs - sentAtMs
    const offset = redisNowMs - (sentAtMs + receivedAtMs) / 2
    // Prefer tight samples; let a stale one be replaced so a drifting clock is followed. A sample that contradicts
    // the kept one (each says the offset is within half its round trip of its figure; here they cannot both be
    // right) means Redis's clock is another one now: a failover to a primary whose clock differs, or a step of the
    // clock. The kept sample, however tight, is then wrong: kept up to 30 s, it would put every retry time and sleep
    // that far off (retries late, or all at once).
    const moved = Math.abs(offset - this.offsetMs) > (rtt + this.bestRttMs) / 2 + ROUNDING_MS
    if (rtt <= this.bestRttMs || receivedAtMs - this.bestAt > SAMPLE_TTL_MS || moved) {
      this.bestRttMs = rtt
      this.bestAt = receivedAtMs
      this.offsetMs = offset
    }
  }

  /**
   * How far the reading may be off (ms): Redis read its clock somewhere within the kept sample's round trip, so its
   * offset is within half that trip of the one kept (Infinity before a first sample). On a loaded host one claim can
   * take hundreds of ms, the event loop stalled before the call left or after its reply came.
   */
  get errorMs(): number {
    return this.bestRttMs / 2
  }

  /** Redis time -> local time. */
  toLocal(redisMs: number): number {
    return redisMs - this.offsetMs
  }

  /** Local time -> Redis time. */
  toRedis(localMs: number): number {
    return localMs + this.offsetMs
  }
}

/**
 * One clock per shard. A shard's scripts run on its own primary: the masters of a Cluster each have a clock, and so
 * does a Sentinel's new primary after a failover. Read from one clock for all, a retry time fixed for a job on a
 * master whose clock differs by δ comes back δ late, or at once.
 */
export class ShardClocks {
  private readonly clocks = new Map<number, RedisClock>()
  /** The clock sampled last: for a shard not sampled yet (its first claim has not answered). */
  private last = new RedisClock()

  observe(shard: number, redisNowMs: number, sentAtMs: number, receivedAtMs: number): void {
    let clock = this.clocks.get(shard)
    if (!clock) {
      clock = new RedisClock()
      this.clocks.set(shard, clock)
    }
    clock.observe(redisNowMs, sentAtMs, receivedAtMs)
    this.last = clock
  }

  of(shard: number): RedisClock {
    return this.clocks.get(shard) ?? this.last
  }
}
