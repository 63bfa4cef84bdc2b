// Fan-out: when a burst leaves more due jobs than one scanner drains in a few seconds, the scan run starts scan
// workers beside it (asynchronous invokes of the scan function itself, src/scan/run/worker.ts), up to SCAN_MAX_WORKERS.
//
// The measure is the run's own claims: a claim that comes back full (its limit reached, `again`) says more is due
// now. The jobs of the full claims in a row, summed over the shards, are a lower bound of the backlog that was due
// as the streak began; a claim that is not full ends its shard's streak (that shard is drained to now). Each further
// `stepJobs` of the streak doubles the scanners: 1 worker at one step, 3 at two, 7 at three... up to maxWorkers.
// So a backlog one scanner drains within about a step's time (FAN_OUT_STEP_JOBS, ~1 s at 1,769 MB) starts no worker,
// and a large one reaches maxWorkers after a few steps rather than one worker per step.
//
// The decision is the run's alone (a worker never fans out), so workers are bounded by maxWorkers per run. They
// claim with leases like any scanner (a lost worker's jobs come back when its leases expire) and end when nothing
// is due any more, or at the deadline the run gives them: the run's own deadline.
import { defaultLog, type Log } from '../../logger'
import type { ClaimResult } from '../claims/claimed-job'

/** The `source` of the event that starts a scan worker: not a tick and not an enqueue's start. */
export const SCAN_WORKER_SOURCE = 'sdq.scan-worker'

/** What a scan worker is started with. */
export interface ScanWorkerEvent {
  source: typeof SCAN_WORKER_SOURCE
  'detail-type': 'Scan Worker'
  /** Local epoch ms: the worker stops by then (the run that started it ends by then too). */
  deadline: number
  /** The run that started it (its request id), for the logs. */
  startedBy: string
  /** 1..maxWorkers within that run. */
  worker: number
}

/** The event's worker fields, or null when the event is not a worker's (a tick, an enqueue's start). */
export function scanWorkerOf(event: unknown): ScanWorkerEvent | null {
  const e = (event ?? {}) as Partial<ScanWorkerEvent>
  if (e.source !== SCAN_WORKER_SOURCE) return null
  if (typeof e.deadline !== 'number' || !Number.isFinite(e.deadline)) return null
  return e as ScanWorkerEvent
}

/**
 * Jobs claimed in full claims in a row that double the scanners: about what one scanner sends in a second at
 * 1,769 MB (measured ~5,900 jobs/s warm at 1,024 MB, docs/benchmarks-scan-function.md). A burst smaller than this never fans out.
 */
export const FAN_OUT_STEP_JOBS = 5_000

export interface FanOutOptions {
  maxWorkers: number
  /** Starts one worker (an asynchronous invoke); rejects when it was not accepted. */
  start(event: ScanWorkerEvent): Promise<void>
  /** The run's deadline (local epoch ms), given to each worker. */
  deadline: number
  /** The run's name (the Lambda request id). */
  name: string
  stepJobs?: number
  logger?: Log
}

export class FanOut {
  /** Per shard: jobs of the full claims in a row. */
  private readonly streak = new Map<number, number>()
  /** Workers asked for (accepted or not: a refused start is not retried by this run, the streak may ask again). */
  started = 0
  failed = 0
  private readonly pending = new Set<Promise<void>>()
  private readonly stepJobs: number

  constructor(private readonly options: FanOutOptions) {
    this.stepJobs = options.stepJobs ?? FAN_OUT_STEP_JOBS
  }

  /** Workers wanted for a streak of `jobs`: 2^steps - 1 (1, 3, 7, ...), at most maxWorkers. */
  wanted(jobs: number): number {
    const steps = Math.floor(jobs / this.stepJobs)
    return Math.min(this.options.maxWorkers, steps >= 31 ? Number.MAX_SAFE_INTEGER : 2 ** steps - 1)
  }

  /** A claim of `shard` came back: counts it into the streak, and starts the workers the streak now wants. */
  claimed(shard: number, result: Pick<ClaimResult, 'again' | 'jobs'>): void {
    if (!result.again || result.jobs.length === 0) {
      this.streak.delete(shard)
      return
    }
    this.streak.set(shard, (this.streak.get(shard) ?? 0) + result.jobs.length)
    let total = 0
    for (const n of this.streak.values()) total += n
    const want = this.wanted(total)
    while (this.started < want && Date.now() < this.options.deadline) this.startOne(++this.started)
  }

  /** Resolves once every start asked for so far has settled (the run waits for them before it ends). */
  async settled(): Promise<void> {
    while (this.pending.size > 0) await Promise.all([...this.pending])
  }

  private startOne(worker: number): void {
    const { name, deadline } = this.options
    const log = this.options.logger ?? defaultLog()
    const event: ScanWorkerEvent = {
      source: SCAN_WORKER_SOURCE,
      'detail-type': 'Scan Worker',
      deadline,
      startedBy: name,
      worker,
    }
    const task = this.options
      .start(event)
      .then(
        () => log.info('scan worker started', { worker, deadline }),
        (error) => {
          // Nothing is lost: this run and the other workers drain the backlog, only slower.
          this.failed++
          log.warn('scan worker start failed', { worker, error: String(error), failed: this.failed })
        },
      )
      .finally(() => this.pending.delete(task))
    this.pending.add(task)
  }
}
