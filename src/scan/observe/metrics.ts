// The scan function's metrics: CloudWatch Embedded Metric Format lines on stdout (Powertools Metrics; CloudWatch
// Logs turns them into metrics, no PutMetricData call). One set per window of at most `intervalMs` (10 s) and one
// when the invocation ends, so a 66 s run is not one late data point. Each window's figures also go to the run log
// in Redis (src/scan/observe/run-log.ts) for the dashboard. docs/operations.md says what each metric means.
import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics'
import { FlowTally } from '../../flow/flow-metrics'
import type { Log } from '../../logger'
import type { MemoryReading } from '../../store/memory'
import type { Backlog } from './backlog'
import type { CpuShareMeter } from './cpu-share'
import { percentile } from './latency'
import type { ScanWindow } from './scan-window'
import type { ScanObserver } from './run-tally'

export const METRICS_NAMESPACE = 'DelayQueue'
export const METRICS_INTERVAL_MS = 10_000

export interface ScanMetricsOptions {
  /** The `service` dimension. */
  serviceName: string
  /** Parallel loops of the scanner (shards): ScanActiveMs is the average over them. */
  loops: number
  readBacklog(): Promise<Backlog>
  /** Redis's clock now: due times are on it. */
  redisNow(): number
  recordWindow?(window: ScanWindow): Promise<void>
  /** The fullest Redis primary at the memory watch's last reading (null before one, or without INFO). */
  readMemory?(): MemoryReading | null
  /** SendMessageBatch calls that carried jobs since the last call: SqsRequests of the window. */
  takeSqsRequests?(): number
  /** The function's CPU use against its share (on Lambda only): ScanCpuSharePercent. */
  cpuShare?: CpuShareMeter
  logger: Log
  intervalMs?: number
}

interface QueueCounts {
  dispatched: number
  released: number
  dead: number
}

export class ScanMetrics implements ScanObserver {
  readonly flow = new FlowTally()
  private queues = new Map<string, QueueCounts>()
  private lateness: number[] = []
  private redisErrors = 0
  private maybeSentCount = 0
  private sleptMs = 0
  private windowStart = Date.now()
  private timer?: NodeJS.Timeout
  private flushing: Promise<void> = Promise.resolve()

  constructor(private readonly options: ScanMetricsOptions) {}

  sent(queue: string, lateMs: number): void {
    this.counts(queue).dispatched++
    this.lateness.push(lateMs)
  }

  released(queue: string, count: number): void {
    this.counts(queue).released += count
  }

  dead(queue: string, count: number): void {
    this.counts(queue).dead += count
  }

  redisError(): void {
    this.redisErrors++
  }

  maybeSent(count: number): void {
    this.maybeSentCount += count
  }

  slept(ms: number): void {
    this.sleptMs += ms
  }

  /** Starts the window timer: a flush every `intervalMs` until stop(). */
  start(): void {
    this.windowStart = Date.now()
    this.options.takeSqsRequests?.()
    const every = this.options.intervalMs ?? METRICS_INTERVAL_MS
    this.timer = setInterval(() => void this.flush(), every)
    this.timer.unref()
  }

  /** Flushes the last window: call once the invocation's loop has ended. */
  async stop(): Promise<void> {
    clearInterval(this.timer)
    await this.flush()
  }

  /** Emits the current window and starts the next; flushes never overlap. */
  flush(): Promise<void> {
    this.flushing = this.flushing.then(() => this.emit())
    return this.flushing
  }

  private async emit(): Promise<void> {
    const window = this.take()
    const backlog = await this.options.readBacklog().catch((e) => {
      this.options.logger.warn('metrics: backlog unreadable', { error: String(e) })
      window.redisErrors++
      return null
    })
    const now = this.options.redisNow()
    const oldestDueAgeMs = backlog ? Math.max(0, now - (backlog.earliestDueMs ?? now)) : null
    const record: ScanWindow = { ...window.summary, oldestDueAgeMs, redisErrors: window.redisErrors }

    // On a diet: CloudWatch bills every metric for each hour in which it gets a data point ($0.30 a metric-month), so
    // a window publishes only what carries news. An idle scan (nothing pending, nothing done) publishes OldestDueAgeMs
    // alone: the alarm that tells "idle" from "no scanner" needs it, everything else would be a zero. Counts are
    // absent rather than 0 (their alarms treat missing data as not breaching), the dispatched total is the dashboard's
    // sum over the queues, and docs/cost.md counts what each workload publishes (tools/cost/metrics.ts).
    const busy = record.dispatched + record.released + record.dead > 0
    const pendingQueues = Object.entries(backlog?.pending ?? {}).filter(([, n]) => n > 0)
    const metrics = newMetrics(this.options.serviceName)
    if (oldestDueAgeMs !== null) metrics.addMetric('OldestDueAgeMs', MetricUnit.Milliseconds, oldestDueAgeMs)
    if (record.dead) metrics.addMetric('DeadLettered', MetricUnit.Count, record.dead)
    if (window.redisErrors) metrics.addMetric('RedisErrors', MetricUnit.Count, window.redisErrors)
    // Sends that ended with no answer SQS may still have acted on: each may be a duplicate (an SQS brownout).
    if (window.maybeSent) metrics.addMetric('MaybeSent', MetricUnit.Count, window.maybeSent)
    if (window.sqsRequests) metrics.addMetric('SqsRequests', MetricUnit.Count, window.sqsRequests)
    this.flow.addTo(metrics)
    if (record.lateness) {
      metrics.addMetric('DispatchLatenessP50', MetricUnit.Milliseconds, record.lateness.p50)
      metrics.addMetric('DispatchLatenessP99', MetricUnit.Milliseconds, record.lateness.p99)
      metrics.addMetric('DispatchLatenessMax', MetricUnit.Milliseconds, record.lateness.max)
    }
    // The CPU share is read every window (it restarts its meter), published only when there was work to measure.
    const cpuShare = this.options.cpuShare?.take()
    if (busy) {
      metrics.addMetric('ScanActiveMs', MetricUnit.Milliseconds, record.activeMs)
      if (cpuShare != null) metrics.addMetric('ScanCpuSharePercent', MetricUnit.Percent, cpuShare)
    }
    // Memory fills with pending jobs: with none pending and nothing done there is nothing to watch.
    if (busy || pendingQueues.length) addMemory(metrics, this.options.readMemory?.() ?? null)
    if (metrics.hasStoredMetrics()) metrics.publishStoredMetrics()

    const names = new Set([...window.queues.keys(), ...pendingQueues.map(([queue]) => queue)])
    publishQueues(this.options.serviceName, names, window.queues, backlog)

    await this.options.recordWindow?.(record).catch((e) => {
      this.options.logger.warn('metrics: run log not written', { error: String(e) })
    })
  }

  /** The window so far, and a fresh one. */
  private take() {
    const end = Date.now()
    const ms = end - this.windowStart
    const sorted = this.lateness.sort((a, b) => a - b)
    const summary = {
      at: end,
      ms,
      ...totals(this.queues),
      lateness: sorted.length
        ? { p50: percentile(sorted, 0.5), p99: percentile(sorted, 0.99), max: sorted[sorted.length - 1]! }
        : null,
      activeMs: Math.max(0, Math.round(ms - this.sleptMs / Math.max(1, this.options.loops))),
    }
    const sqsRequests = this.options.takeSqsRequests?.()
    const taken = {
      summary,
      queues: this.queues,
      redisErrors: this.redisErrors,
      maybeSent: this.maybeSentCount,
      sqsRequests,
    }
    this.queues = new Map()
    this.lateness = []
    this.redisErrors = 0
    this.maybeSentCount = 0
    this.sleptMs = 0
    this.windowStart = end
    return taken
  }

  private counts(queue: string): QueueCounts {
    let c = this.queues.get(queue)
    if (!c) {
      c = { dispatched: 0, released: 0, dead: 0 }
      this.queues.set(queue, c)
    }
    return c
  }
}

/** The window's counts over every queue. */
function totals(queues: Map<string, QueueCounts>): QueueCounts {
  const sum = { dispatched: 0, released: 0, dead: 0 }
  for (const c of queues.values()) {
    sum.dispatched += c.dispatched
    sum.released += c.released
    sum.dead += c.dead
  }
  return sum
}

/**
 * Per target queue: Dispatched and Pending for every queue with pending jobs or activity in the window (zeros
 * included: the graph shows a queue drain to 0); Released and DeadLettered only when they happened.
 */
function publishQueues(
  serviceName: string,
  names: Set<string>,
  queues: Map<string, QueueCounts>,
  backlog: Backlog | null,
): void {
  for (const queue of names) {
    const counts = queues.get(queue) ?? { dispatched: 0, released: 0, dead: 0 }
    const perQueue = newMetrics(serviceName, { queue })
    perQueue.addMetric('Dispatched', MetricUnit.Count, counts.dispatched)
    if (counts.released) perQueue.addMetric('Released', MetricUnit.Count, counts.released)
    if (counts.dead) perQueue.addMetric('DeadLettered', MetricUnit.Count, counts.dead)
    if (backlog) perQueue.addMetric('Pending', MetricUnit.Count, backlog.pending[queue] ?? 0)
    perQueue.publishStoredMetrics()
  }
}

function newMetrics(serviceName: string, dimensions: Record<string, string> = {}): Metrics {
  return new Metrics({ namespace: METRICS_NAMESPACE, serviceName, defaultDimensions: dimensions })
}

/**
 * Redis's memory at the last reading. At 100% (noeviction) new jobs are refused with 507 StoreFull: the memory alarm
 * watches the percent. A node without maxmemory has no percent: then the bytes in use, so the figure is not lost.
 */
function addMemory(metrics: Metrics, memory: MemoryReading | null): void {
  if (!memory) return
  if (memory.percent !== null) metrics.addMetric('RedisMemoryUsedPercent', MetricUnit.Percent, memory.percent)
  else metrics.addMetric('RedisMemoryUsedBytes', MetricUnit.Bytes, memory.usedBytes)
}
