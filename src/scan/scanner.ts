// The scan loop: claim due jobs, hand them to SQS, settle their leases; until a deadline.
//
// Timing. Each shard sleeps until the earliest of: its next due time (on Redis's clock, converted to ours), the poll
// interval, the deadline. Client-side timers, not Redis blocking commands: at Redis's default `hz 10` a blocking
// timeout overshoots by up to 100 ms. An enqueue that becomes a shard's earliest job publishes a wake signal, so a
// job scheduled 50 ms ahead still fires on time while the poll interval stays long (an idle shard costs one claim
// per interval). The poll is only a fallback: for a missed wake message, or a job due before the loop starts.
//
// Throughput. Claims do not wait for their sends: while SQS works on one claim's batches the next claim runs, up to
// `maxInFlight` leased jobs per scanner. A claim returns "again" when it hit its limit, so a backlog drains at once.
import type { RedisClient } from '../store/scripts'
import { RedisClock } from './clock'
import { ConfigError } from '../errors'
import { verifyLayout } from '../store/layout'
import type { Dispatcher, RefusedJob } from './dispatcher'
import type { Keyspace, ShardKeys } from '../store/keys'
import type { ClaimedJob, ClaimResult, Leases } from './leases'
import { LatencyRecorder } from './latency'
import type { MemoryWatch } from './memory-watch'
import type { MemoryReading } from '../store/memory'
import { defaultLog, type Log } from '../logger'

/** What the scanner reports as it goes (src/scan/metrics.ts turns it into metrics). */
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

export interface ScannerOptions {
  leases: Leases
  dispatcher: Dispatcher
  keys: Keyspace
  /** A connection of its own for the wake signals (a subscribed connection can do nothing else). */
  subscriber?: RedisClient
  pollIntervalMs: number
  claimBatchSize: number
  /** Most jobs leased and not yet settled, per scanner: bounds memory and lease age under a burst. */
  maxInFlight?: number
  logger?: Log
  observer?: ScanObserver
  /** Reads Redis's memory use while the loop runs (warning before it is full). */
  memoryWatch?: MemoryWatch
  /** Called as each job is accepted by SQS (benchmarks, tests). */
  onSent?: (job: ClaimedJob, acceptedAtMs: number, lateMs: number) => void
}

export interface ScanReport {
  dispatched: number
  /** Jobs SQS refused this run, released for a retry with backoff. */
  released: number
  /** Jobs that used up their attempts this run and went to the dead set. */
  dead: number
  claims: number
  /** Redis errors the loop survived (it backs off and carries on). */
  errors: number
  lateness: { p50: number; p99: number; max: number } | null
  durationMs: number
  /** The fullest Redis primary at the last memory reading (null without one): a metric for the scan function. */
  memory: MemoryReading | null
}

interface ShardState {
  keys: ShardKeys
  hints: string[]
  /** Resolves the current sleep early (wake signal). */
  wake?: () => void
  sleepingUntil: number
}

export class Scanner {
  private readonly clock = new RedisClock()
  private readonly latency = new LatencyRecorder()
  private readonly pending = new Set<Promise<void>>()
  private inFlight = 0
  private capacityWaiters: (() => void)[] = []
  private stopped = false
  private running = false
  private report!: ScanReport
  private shards: ShardState[] = []
  /** Local ms of this run's last claimed job or settled send (on-demand mode ends after a linger without work). */
  private lastWorkAt = -Infinity

  constructor(private readonly options: ScannerOptions) {}

  /** Runs until `untilMs` (local epoch ms) or stop(), then waits for every send and settlement to finish. */
  async run(untilMs: number): Promise<ScanReport> {
    if (this.running) throw new Error('this scanner is running already: create one scanner per loop')
    this.running = true
    const started = Date.now()
    this.stopped = false
    this.report = {
      dispatched: 0,
      released: 0,
      dead: 0,
      claims: 0,
      errors: 0,
      lateness: null,
      durationMs: 0,
      memory: null,
    }
    this.latency.reset()
    this.lastWorkAt = -Infinity
    this.shards = this.options.keys.shards.map((keys) => ({ keys, hints: [], sleepingUntil: 0 }))
    const unsubscribe = await this.subscribe()
    this.options.memoryWatch?.start()
    try {
      await Promise.all(this.shards.map((s) => this.runShard(s, untilMs)))
      while (this.pending.size) await Promise.all([...this.pending])
    } finally {
      this.options.memoryWatch?.stop()
      await unsubscribe()
      this.running = false
    }
    this.report.memory = this.options.memoryWatch?.latest ?? null
    this.report.lateness = this.latency.summary()
    this.report.durationMs = Date.now() - started
    return this.report
  }

  /** When this run last had work: now while sends are in flight, -Infinity if it never had any. */
  lastWorkMs(): number {
    return this.inFlight > 0 ? Date.now() : this.lastWorkAt
  }

  stop(): void {
    this.stopped = true
    for (const s of this.shards) s.wake?.()
    this.notifyCapacity()
  }

  private async runShard(shard: ShardState, untilMs: number): Promise<void> {
    const { leases, claimBatchSize, pollIntervalMs } = this.options
    let failures = 0
    while (!this.stopped && Date.now() < untilMs) {
      await this.waitForCapacity()
      if (this.stopped) break
      let result: ClaimResult
      const sentAt = Date.now()
      try {
        await verifyLayout(leases.redis, this.options.keys)
        if (shard.hints.length === 0) shard.hints = await leases.seedHints(shard.keys, claimBatchSize)
        result = await leases.claim(shard.keys, shard.hints, claimBatchSize)
        failures = 0
      } catch (e) {
        // Another deployment's key layout: scanning would strand jobs. Stop, loudly.
        if (e instanceof ConfigError) {
          this.stop()
          throw e
        }
        // Redis away (restart, failover): nothing is lost, leases keep the claimed jobs; back off and retry.
        this.redisError()
        failures++
        this.logger.warn('claim failed', { shard: shard.keys.shard, error: String(e) })
        await this.sleep(shard, Math.min(Date.now() + Math.min(100 * 2 ** failures, 2_000), untilMs))
        continue
      }
      this.clock.observe(result.redisNowMs, sentAt, Date.now())
      this.report.claims++
      shard.hints = result.hints
      if (result.jobs.length) {
        this.lastWorkAt = Date.now()
        this.deliver(shard.keys, result.jobs)
      }
      if (result.again) continue
      const nextDue = result.nextDueMs === null ? Infinity : this.clock.toLocal(result.nextDueMs)
      await this.sleep(shard, Math.min(nextDue, Date.now() + pollIntervalMs, untilMs))
    }
  }

  /** Sends one claim's jobs and settles their leases; runs alongside the next claims. */
  private deliver(shard: ShardKeys, jobs: ClaimedJob[]): void {
    this.inFlight += jobs.length
    const task = (async () => {
      const { sent, refused } = await this.options.dispatcher.dispatch(jobs)
      for (const { job, acceptedAtMs } of sent) {
        const late = this.clock.toRedis(acceptedAtMs) - job.dueMs
        this.latency.record(late)
        this.options.observer?.sent(job.queue, late)
        this.options.onSent?.(job, acceptedAtMs, late)
      }
      this.report.dispatched += sent.length
      await this.settle(
        shard,
        sent.map((s) => s.job),
        refused,
      )
    })()
      .catch((e) => this.logger.error('delivery failed', { shard: shard.shard, error: String(e) }))
      .finally(() => {
        this.pending.delete(task)
        this.inFlight -= jobs.length
        this.lastWorkAt = Date.now()
        this.notifyCapacity()
      })
    this.pending.add(task)
  }

  /**
   * Ack what SQS has, release what it refused. If Redis is away, retry for a while; if it stays away the leases
   * expire and the jobs are claimed again: a duplicate send, never a lost job.
   */
  private async settle(shard: ShardKeys, sent: ClaimedJob[], refused: RefusedJob[]) {
    const { leases } = this.options
    for (let attempt = 0; ; attempt++) {
      try {
        if (sent.length) await leases.ack(shard, sent)
        sent = []
        // One release per target queue (refusals are rare): the metrics count released and dead jobs per queue.
        while (refused.length) {
          const queue = refused[0]!.job.queue
          const batch = refused.filter((r) => r.job.queue === queue)
          const r = await leases.release(
            shard,
            batch.map(({ job, error, jobsFault, after }) => ({
              id: job.id,
              token: job.token,
              attempt: job.attempt,
              error,
              jobsFault,
              retryInMs: leases.retryDelay(job, after),
            })),
          )
          refused = refused.filter((r) => r.job.queue !== queue)
          this.report.released += r.released
          this.report.dead += r.dead
          if (r.released) this.options.observer?.released(queue, r.released)
          if (r.dead) {
            this.options.observer?.dead(queue, r.dead)
            this.logger.warn('jobs moved to the dead set', { shard: shard.shard, queue, count: r.dead })
          }
        }
        return
      } catch (e) {
        this.redisError()
        if (attempt >= 8) throw e
        await new Promise((r) => setTimeout(r, Math.min(100 * 2 ** attempt, 3_000)))
      }
    }
  }

  private get maxInFlight(): number {
    return this.options.maxInFlight ?? this.options.claimBatchSize * 8
  }

  private async waitForCapacity(): Promise<void> {
    while (this.inFlight >= this.maxInFlight && !this.stopped) {
      await new Promise<void>((resolve) => this.capacityWaiters.push(resolve))
    }
  }

  private notifyCapacity(): void {
    const waiters = this.capacityWaiters
    this.capacityWaiters = []
    for (const w of waiters) w()
  }

  private sleep(shard: ShardState, untilLocalMs: number): Promise<void> {
    const ms = untilLocalMs - Date.now()
    if (ms <= 0 || this.stopped) return Promise.resolve()
    shard.sleepingUntil = untilLocalMs
    const observer = this.options.observer
    const from = Date.now()
    return new Promise<void>((resolve) => {
      const timer = setTimeout(done, ms)
      function done() {
        clearTimeout(timer)
        observer?.slept(Date.now() - from)
        shard.wake = undefined
        shard.sleepingUntil = 0
        resolve()
      }
      shard.wake = done
    })
  }

  /** Wake signals: "dueMs:bucket" on each shard's channel, published by lua/enqueue.lua. */
  private async subscribe(): Promise<() => Promise<void>> {
    const sub = this.options.subscriber
    if (!sub) return async () => {}
    const byChannel = new Map(this.shards.map((s) => [s.keys.wakeChannel, s]))
    const onMessage = (channel: string, message: string) => {
      const shard = byChannel.get(channel)
      if (!shard) return
      const [due, bucket] = message.split(':')
      if (bucket && !shard.hints.includes(bucket)) shard.hints = [bucket, ...shard.hints]
      if (shard.wake && this.clock.toLocal(Number(due)) < shard.sleepingUntil) shard.wake()
    }
    sub.on('message', onMessage)
    try {
      await sub.subscribe(...byChannel.keys())
    } catch (e) {
      // Without wake signals the loop still works, on the poll interval.
      this.logger.warn('wake subscription failed', { error: String(e) })
    }
    return async () => {
      sub.off('message', onMessage)
      await sub.unsubscribe(...byChannel.keys()).catch(() => {})
    }
  }

  /** Redis's clock now, as this scanner last measured it. */
  redisNow(): number {
    return this.clock.toRedis(Date.now())
  }

  private redisError(): void {
    this.report.errors++
    this.options.observer?.redisError()
  }

  private get logger(): Log {
    return this.options.logger ?? defaultLog()
  }
}
