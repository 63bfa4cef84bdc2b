/** Dispatch lateness (SQS accepted - due), kept exactly for a run's summary. */
export class LatencyRecorder {
  private samples: number[] = []

  record(ms: number): void {
    this.samples.push(ms)
  }

  reset(): void {
    this.samples = []
  }

  summary(): { p50: number; p99: number; max: number } | null {
    if (this.samples.length === 0) return null
    const sorted = [...this.samples].sort((a, b) => a - b)
    return { p50: percentile(sorted, 0.5), p99: percentile(sorted, 0.99), max: sorted[sorted.length - 1]! }
  }
}

/** Nearest-rank percentile of an ascending array. */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return NaN
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))]!
}
