// The offset between this process's clock and Redis's. Due times are on Redis's clock; the scanner sleeps on its
// own, so it converts. NTP-style: the sample with the smallest round trip bounds the error by half that trip.

const SAMPLE_TTL_MS = 30_000

export class RedisClock {
  private offsetMs = 0
  private bestRttMs = Infinity
  private bestAt = 0

  /** Record one exchange: local time before and after a call that reported Redis's time. */
  observe(redisNowMs: number, sentAtMs: number, receivedAtMs: number): void {
    const rtt = receivedAtMs - sentAtMs
    // Prefer tight samples; let a stale one be replaced so a drifting clock is followed.
    if (rtt <= this.bestRttMs || receivedAtMs - this.bestAt > SAMPLE_TTL_MS) {
      this.bestRttMs = rtt
      this.bestAt = receivedAtMs
      this.offsetMs = redisNowMs - (sentAtMs + receivedAtMs) / 2
    }
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
