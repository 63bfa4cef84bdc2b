/** A summary of dispatch lateness, or of one of its parts (ms). */
export interface LatenessSummary {
  p50: number
  p99: number
  max: number
}

/** Dispatch lateness (SQS accepted - due), kept exactly for a run's summary. */
export class LatencyRecorder {
  private samples: number[] = []

  record(ms: number): void {
    this.samples.push(ms)
  }

  reset(): void {
    this.samples = []
  }

  summary(): LatenessSummary | null {
    if (this.samples.length === 0) return null
    const sorted = [...this.samples].sort((a, b) => a - b)
    return { p50: percentile(sorted, 0.5), p99: percentile(sorted, 0.99), max: sorted[sorted.length - 1]! }
  }
}

/**
 * Where a run's lateness came from: `claim` is how late the scanner took its jobs (Redis's time at the claim - due:
 * wake-up and timers, the claim's way to Redis), `send` how long their SendMessageBatch took (request to SQS's
 * answer). What is left of the lateness is the claim's reply and the wait for a send slot.
 */
export interface LatenessParts {
  claim: LatenessSummary
  send: LatenessSummary
}

/** Lateness and its parts, one sample of each per dispatched job. */
export class DispatchLatency {
  private readonly total = new LatencyRecorder()
  private readonly claim = new LatencyRecorder()
  private readonly send = new LatencyRecorder()

  record(lateMs: number, claimLateMs: number, sendMs: number): void {
    this.total.record(lateMs)
    this.claim.record(claimLateMs)
    this.send.record(sendMs)
  }

  reset(): void {
    for (const r of [this.total, this.claim, this.send]) r.reset()
  }

  summary(): { lateness: LatenessSummary | null; latenessParts: LatenessParts | null } {
    const lateness = this.total.summary()
    if (!lateness) return { lateness, latenessParts: null }
    return { lateness, latenessParts: { claim: this.claim.summary()!, send: this.send.summary()! } }
  }
}

/** Nearest-rank percentile of an ascending array. */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return NaN
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))]!
}
