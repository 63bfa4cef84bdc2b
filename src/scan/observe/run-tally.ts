// What one scanner run counts (its report), told to the observer (metrics) and the log as it goes.
import type { ShardKeys } from '../../store/keys'
import type { MemoryReading } from '../../store/memory'
import type { Log } from '../../logger'
import type { LatenessParts } from './latency'

/** What the scanner reports as it goes (src/scan/observe/metrics.ts turns it into metrics). */
export interface ScanObserver {
  sent(queue: string, lateMs: number): void
  /** Refused by SQS, back for a retry with backoff. */
  released(queue: string, count: number): void
  /** Used up their attempts: in the dead set now. */
  dead(queue: string, count: number): void
  redisError(): void
  /** A shard's loop slept this long (waiting for the next due time, the poll interval, or a wake signal). */
  slept(ms: number): void
}

export interface ScanReport {
  dispatched: number
  /** Jobs SQS refused this run, released for a retry with backoff. */
  released: number
  /** Jobs that used up their attempts this run and went to the dead set. */
  dead: number
  claims: number
  /** SendMessageBatch calls that carried jobs: dispatched / sqsRequests is the jobs per request (DISPATCH_WINDOW_MS). */
  sqsRequests: number
  /** Redis errors the loop survived (it backs off and carries on). */
  errors: number
  lateness: { p50: number; p99: number; max: number } | null
  /** Where the lateness came from: the claim's part and the SQS call's (src/scan/observe/latency.ts). */
  latenessParts: LatenessParts | null
  durationMs: number
  /** The fullest Redis primary at the last memory reading (null without one): a metric for the scan function. */
  memory: MemoryReading | null
}

export function emptyReport(): ScanReport {
  return {
    dispatched: 0,
    released: 0,
    dead: 0,
    claims: 0,
    sqsRequests: 0,
    errors: 0,
    lateness: null,
    latenessParts: null,
    durationMs: 0,
    memory: null,
  }
}

/** A run's counters; the scanner makes one per run. */
export class RunTally {
  readonly report: ScanReport = emptyReport()

  constructor(
    private readonly logger: Log,
    private readonly observer?: ScanObserver,
  ) {}

  claimed(): void {
    this.report.claims++
  }

  sent(count: number): void {
    this.report.dispatched += count
  }

  released(shard: ShardKeys, queue: string, released: number, dead: number): void {
    this.report.released += released
    this.report.dead += dead
    if (released) this.observer?.released(queue, released)
    if (dead) {
      this.observer?.dead(queue, dead)
      this.logger.warn('jobs moved to the dead set', { shard: shard.shard, queue, count: dead })
    }
  }

  redisError(): void {
    this.report.errors++
    this.observer?.redisError()
  }
}
