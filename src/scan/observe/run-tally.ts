// What one scanner run counts (its report), told to the observer (metrics) and the log as it goes.
import type { ShardKeys } from '../../store/keys'
import type { MemoryReading } from '../../store/memory'
import type { Log } from '../../logger'
import type { LatenessParts } from './latency'
import type { FlowObserver } from '../../flow/flow-gate'

/** What the scanner reports as it goes (src/scan/observe/metrics.ts turns it into metrics). */
export interface ScanObserver {
  /** Jobs held by flow control (src/flow/flow-gate.ts). */
  flow?: FlowObserver
  sent(queue: string, lateMs: number): void
  /** Refused by SQS, back for a retry with backoff. */
  released(queue: string, count: number): void
  /** Used up their attempts: in the dead set now. */
  dead(queue: string, count: number): void
  redisError(): void
  /** A shard's loop slept this long (waiting for the next due time, the poll interval, or a wake signal). */
  slept(ms: number): void
  /**
   * Jobs whose send ended without an answer that SQS may still have acted on (a timeout, a cut answer, a server
   * error): each may be one extra copy. Many of them at once are the sign of an SQS brownout.
   */
  maybeSent?(count: number): void
}

export interface ScanReport {
  dispatched: number
  /** Jobs SQS refused this run, released for a retry with backoff. */
  released: number
  /** Jobs that used up their attempts this run and went to the dead set. */
  dead: number
  /** Jobs released this run after a send that SQS may have acted on without answering (ScanObserver.maybeSent). */
  maybeSent: number
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
    maybeSent: 0,
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

  /** A dispatch's outcome: `sent` jobs SQS took; of the others, those that may be in SQS all the same. */
  sent(count: number, refused: readonly { maybeSent?: boolean }[] = []): void {
    this.report.dispatched += count
    let maybe = 0
    for (const r of refused) if (r.maybeSent) maybe++
    if (maybe === 0) return
    this.report.maybeSent += maybe
    this.observer?.maybeSent?.(maybe)
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
