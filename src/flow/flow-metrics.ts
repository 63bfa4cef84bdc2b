// Flow control's metrics per window (docs/operations.md): how many jobs a rate held and how late the latest of them
// will leave, and how many a pause held. Published with the scan function's other metrics (src/scan/observe/metrics.ts).
import { MetricUnit } from '@aws-lambda-powertools/metrics'
import type { FlowObserver } from './flow-gate'

/** Where the figures go: a Powertools Metrics (or anything with its addMetric). */
export interface MetricSink {
  addMetric(name: string, unit: (typeof MetricUnit)[keyof typeof MetricUnit], value: number): unknown
}

export class FlowTally implements FlowObserver {
  private rateHeldCount = 0
  private rateLateMaxMs = 0
  private pausedCount = 0

  paused(): void {
    this.pausedCount++
  }

  rateHeld(_queue: string, _name: string, lateMs: number, again = false): void {
    // A job once per attempt however many times a rate holds it; its latest time still counts for the lateness.
    if (!again) this.rateHeldCount++
    this.rateLateMaxMs = Math.max(this.rateLateMaxMs, lateMs)
  }

  /** Adds the window's figures (only those that happened: an idle window publishes none) and starts the next. */
  addTo(metrics: MetricSink): void {
    if (this.rateHeldCount) {
      metrics.addMetric('FlowRateHeld', MetricUnit.Count, this.rateHeldCount)
      metrics.addMetric('FlowRateLatenessMax', MetricUnit.Milliseconds, this.rateLateMaxMs)
    }
    if (this.pausedCount) metrics.addMetric('FlowPausedHeld', MetricUnit.Count, this.pausedCount)
    this.rateHeldCount = 0
    this.rateLateMaxMs = 0
    this.pausedCount = 0
  }
}
