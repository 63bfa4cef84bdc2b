// The scan loop: claim due jobs, hand them to SQS, settle their leases; until a deadline.
//
// Timing. Each shard sleeps until the earliest of: its next due time (on Redis's clock, converted to ours), the poll
// interval, the deadline. Client-side timers, not Redis blocking commands: at Redis's default `hz 10` a blocking
// timeout overshoots by up to 100 ms. An enqueue that becomes a shard's earliest job publishes a wake signal, so a
// job scheduled 50 ms ahead still fires on time while the poll interval stays long (an idle shard costs one claim
// per interval). The poll is only a fallback: for a missed wake message, or a job due before the loop starts.
// With a dispatch window W, the shard sleeps until the earliest due time + W instead, and its claim then takes every
// job due by that moment: a steady stream of r jobs a second leaves in requests of about 1 + r·W jobs (up to 10)
// instead of one each, which is what SQS bills and what costs the scan CPU (a claim, a send and an ack per wake-up).
// No job waits longer than W for it (src/scan/loop/wake.ts planSleep); retries and expired leases are not held for it.
// Before a sleep that ends at a due time, an idle dispatcher warms its connection to SQS (src/scan/dispatch/warm-up.ts), so
// the job's send does not pay for opening it.
//
// Throughput. Claims do not wait for their sends: while SQS works on one claim's batches the next claim runs, up to
// `maxInFlight` leased jobs per scanner. A claim returns "again" when it hit its limit, so a backlog drains at once.
//
// FIFO order. A FIFO job goes to the dispatcher once every shard has been claimed up to its due time
// (src/scan/loop/fifo-merge.ts): shards that lag behind a held job are woken to claim at once, and may claim while the
// scanner is full if held jobs take half its room or more (else held jobs would wait for room they hold).
import type { RedisClient } from '../../store/scripts'
import { RedisClock } from './clock'
import { ConfigError } from '../../errors'
import { verifyLayout } from '../../store/layout'
import type { Dispatcher, SentJob } from '../dispatch/dispatcher'
import type { Keyspace } from '../../store/keys'
import type { Leases } from '../claims/leases'
import type { ClaimedJob, ClaimResult } from '../claims/claimed-job'
import { InFlight } from './in-flight'
import { WARM_AFTER_IDLE_MS } from '../dispatch/warm-up'
import { byShard, settleClaim } from '../claims/settle'
import { AckHold } from '../claims/ack-hold'
import { bringForward, owesClaim, planSleep, type ShardState, sleepShard, subscribeWakes } from './wake'
import { DispatchLatency } from '../observe/latency'
import { RunTally, type ScanObserver, type ScanReport } from '../observe/run-tally'
import type { MemoryWatch } from '../observe/memory-watch'
import { defaultLog, type Log } from '../../logger'
import { FifoHold } from './fifo-hold'
import { WorkWatch } from './work-watch'
import type { FlowGate } from '../../flow/flow-gate'

export interface ScannerOptions {
  leases: Leases
  dispatcher: Dispatcher
  keys: Keyspace
  /** A connection of its own for the wake signals (a subscribed connection can do nothing else). */
  subscriber?: RedisClient
  pollIntervalMs: number
  /**
   * How long after its due time a job may wait for the jobs due after it, to share their SendMessageBatch (one SQS
   * request for up to 10). 0 (the default) sends each job the moment it is due. See "Timing" above.
   */
  dispatchWindowMs?: number
  claimBatchSize: number
  /** Most jobs leased and not yet settled, per scanner: bounds memory and lease age under a burst. */
  maxInFlight?: number
  logger?: Log
  observer?: ScanObserver
  /** Reads Redis's memory use while the loop runs (warning before it is full). */
  memoryWatch?: MemoryWatch
  /**
   * How long a finished send's ack may wait for the shard's next claim, to go with it (src/scan/claims/ack-hold.ts);
   * 0 acks at once. Default 100 ms.
   */
  ackHoldMs?: number
  /** Called as each job is accepted by SQS (benchmarks, tests); `sentAtMs`: when its request started (local ms). */
  onSent?: (job: ClaimedJob, acceptedAtMs: number, lateMs: number, sentAtMs: number) => void
  /** Called with each claim's result (the fan-out's measure of the backlog: src/scan/run/fan-out.ts). */
  onClaimed?: (shard: number, result: ClaimResult) => void
  /** Flow control (pauses, rates: src/flow/flow-gate.ts); absent: every claimed job is sent. */
  flow?: FlowGate
}

/** Long enough to meet the next claim of a stream of ~10+ jobs a second, short against any lease. */
const DEFAULT_ACK_HOLD_MS = 100

/**
 * A shard's claim, after the layout check and, when the shard has none, its hints. The clock sample brackets the claim
 * alone: counting the calls before it would put Redis's clock behind by half their time, and a full request's claim
 * would come that much early (and leave with nine jobs).
 */
async function claimStep(shard: ShardState, o: ScannerOptions, clock: RedisClock): Promise<ClaimResult> {
  await verifyLayout(o.leases.redis, o.keys)
  if (shard.hints.length === 0) shard.hints = await o.leases.seedHints(shard.keys, o.claimBatchSize)
  // Read before the first claim, not after it: a wake signal that came meanwhile would find the shard awake.
  if (o.flow?.stale(undefined)) await o.flow.reload()
  const sentAt = Date.now()
  const flow = o.flow && { paces: o.flow.paceSpec(), epochWanted: o.flow.catchingUp() }
  const result = await o.leases.claim(shard.keys, shard.hints, o.claimBatchSize, shard.fullBy, flow)
  clock.observe(result.redisNowMs, sentAt, Date.now())
  o.flow?.paced(result.paced)
  // The settings moved (a pause answered, a rate changed): this claim's jobs are judged by the new ones.
  if (o.flow?.stale(result.flowEpoch)) await o.flow.reload()
  return result
}

/** Lateness figures and hooks for the jobs SQS accepted. */
function recordSent(sent: readonly SentJob[], clock: RedisClock, latency: DispatchLatency, o: ScannerOptions): void {
  for (const { job, sentAtMs, acceptedAtMs, messageId } of sent) {
    const late = clock.toRedis(acceptedAtMs) - job.dueMs
    // What the ack keeps as the job's dispatch receipt.
    job.accepted = { messageId, acceptedAtMs: clock.toRedis(acceptedAtMs) }
    latency.record(late, job.claimedAtMs - job.dueMs, acceptedAtMs - sentAtMs)
    o.observer?.sent(job.queue, late)
    o.onSent?.(job, acceptedAtMs, late, sentAtMs)
  }
}

/**
 * Sends the jobs flow control lets go (src/flow/flow-gate.ts): those it has nothing to say about at once, the others
 * once it has decided (it holds the rest in Redis, pending, settled).
 */
async function dispatchGated(o: ScannerOptions, fifo: FifoHold, jobs: ClaimedJob[], redisNow: () => number) {
  if (!o.flow) return o.dispatcher.dispatch(jobs, redisNow())
  const { free, gated } = o.flow.split(jobs)
  const later = gated.length
    ? o.flow.pass(gated, (n, atMs) => fifo.holding(n, atMs)).then((ready) => o.dispatcher.dispatch(ready, redisNow()))
    : undefined
  const now = await o.dispatcher.dispatch(free, redisNow())
  if (!later) return now
  const rest = await later
  return { sent: [...now.sent, ...rest.sent], refused: [...now.refused, ...rest.refused] }
}

export class Scanner {
  private readonly clock = new RedisClock()
  private readonly latency = new DispatchLatency()
  private readonly inFlight: InFlight
  private stopped = false
  private running = false
  private tally!: RunTally
  private shards: ShardState[] = []
  private acks!: AckHold
  private fifo!: FifoHold
  /** When this run last had work (on-demand runs and scan workers end after a while without). */
  private readonly work = new WorkWatch()
  /** DISPATCH_WINDOW_MS: how long a due job may wait for the jobs due after it. */
  readonly windowMs: number

  constructor(private readonly options: ScannerOptions) {
    this.inFlight = new InFlight(options.maxInFlight ?? options.claimBatchSize * 8)
    this.windowMs = options.dispatchWindowMs ?? 0
  }

  /** Runs until `untilMs` (local epoch ms) or stop(), then waits for every send and settlement to finish. */
  async run(untilMs: number): Promise<ScanReport> {
    if (this.running) throw new Error('this scanner is running already: create one scanner per loop')
    this.running = true
    const started = Date.now()
    const requestsBefore = this.options.dispatcher.requests
    this.stopped = false
    this.tally = new RunTally(this.logger, this.options.observer)
    this.latency.reset()
    this.work.reset()
    this.shards = this.options.keys.shards.map((keys) => ({ keys, hints: [], sleepingUntil: 0 }))
    this.acks = new AckHold(this.options.leases, this.shards, this.options.ackHoldMs ?? DEFAULT_ACK_HOLD_MS)
    this.fifo = new FifoHold(this.shards, this.inFlight, this.options.flow)
    const { subscriber } = this.options
    const unsubscribe = await subscribeWakes(subscriber, this.shards, this.clock, this.logger, this.windowMs)
    this.options.memoryWatch?.start()
    try {
      await Promise.all(this.shards.map((s) => this.runShard(s, untilMs)))
      // No claim follows: held acks go now, and later ones at once (no shard sleeps any more).
      this.acks.flushAll()
      this.fifo.giveBack(this.options.leases, this.logger)
      await this.inFlight.drain()
    } finally {
      this.options.memoryWatch?.stop()
      await unsubscribe()
      this.running = false
    }
    return Object.assign(this.tally.report, this.latency.summary(), {
      memory: this.options.memoryWatch?.latest ?? null,
      sqsRequests: this.options.dispatcher.requests - requestsBefore,
      durationMs: Date.now() - started,
    })
  }

  /** When this run last had work (WorkWatch.lastWorkMs; `untilEmptyClaim`: a scan worker's view). */
  lastWorkMs(untilEmptyClaim = false): number {
    return this.work.lastWorkMs(this.inFlight.size > 0, untilEmptyClaim)
  }

  stop(): void {
    this.stopped = true
    for (const s of this.shards) s.wake?.()
    this.acks?.flushAll()
    this.inFlight.release()
  }

  private async runShard(shard: ShardState, untilMs: number): Promise<void> {
    const { pollIntervalMs } = this.options
    const n = shard.keys.shard
    let failures = 0
    // A claim owed past the deadline (wake.ts owesClaim) is still made: the next run may start late.
    let owed = false
    while (!this.stopped && (Date.now() < untilMs || owed)) {
      owed = false
      // Written now, the held acks travel with the claim below: both replies end one wait (src/scan/claims/ack-hold.ts).
      this.acks.flush(shard.keys)
      // A shard that lags behind held FIFO jobs may have to claim while they fill the room (src/scan/loop/fifo-hold.ts).
      await this.inFlight.waitForRoom(() => this.stopped || this.fifo.mustClaim(n))
      if (this.stopped) break
      let result: ClaimResult
      try {
        result = await claimStep(shard, this.options, this.clock)
        failures = 0
      } catch (e) {
        // Another deployment's key layout: scanning would strand jobs. Stop, loudly.
        if (e instanceof ConfigError) {
          this.stop()
          throw e
        }
        // Redis away (restart, failover): nothing is lost, leases keep the claimed jobs; back off and retry.
        this.tally.redisError()
        failures++
        this.logger.warn('claim failed', { shard: shard.keys.shard, error: String(e) })
        await this.sleep(shard, Math.min(Date.now() + Math.min(100 * 2 ** failures, 2_000), untilMs))
        continue
      }
      this.tally.claimed()
      this.options.onClaimed?.(n, result)
      shard.hints = result.hints
      this.work.claimed(result.jobs.length)
      const ready = this.fifo.take(n, result)
      if (ready.length) this.deliver(ready)
      if (result.again || this.fifo.lags(n)) continue
      const wakeAt = planSleep(shard, result, this.clock, { pollIntervalMs, windowMs: this.windowMs, untilMs })
      // A job falls due then: ready the SQS connection, unless a long window would let it idle out again.
      if (shard.sleepsForDue && this.windowMs < WARM_AFTER_IDLE_MS) void this.options.dispatcher.warm()
      await this.sleep(shard, wakeAt)
      owed = owesClaim(shard, wakeAt, untilMs)
    }
  }

  /** Sends jobs (of any shards) and settles their leases; runs alongside the next claims. */
  private deliver(jobs: ClaimedJob[]): void {
    const task = (async () => {
      const { sent, refused } = await dispatchGated(this.options, this.fifo, jobs, () => this.redisNow())
      recordSent(sent, this.clock, this.latency, this.options)
      this.tally.sent(sent.length, refused)
      // A claim's jobs are of one shard; FIFO jobs freed by another shard's claim may be of several.
      await Promise.all(
        [...byShard(sent, refused)].map(async ([n, settled]) => {
          const { keys } = this.shards[n]!
          const answered = this.fifo.releasing(n, settled.refused, this.options.leases)
          const retryAt = await settleClaim(this.options.leases, this.acks, keys, settled.sent, settled.refused, {
            released: (queue, released, dead) => this.tally.released(keys, queue, released, dead),
            died: (ids) => this.options.dispatcher.forgetRefused(ids),
            redisError: () => this.tally.redisError(),
          }).finally(answered)
          // Their retry may come before the shard's sleep ends (a poll, or a due time + the window).
          if (retryAt !== null) bringForward(this.shards[n]!, retryAt)
        }),
      )
    })().catch((e) => this.logger.error('delivery failed', { error: String(e) }))
    this.inFlight.track(jobs.length, task, () => {
      this.work.settled()
    })
  }

  private sleep(shard: ShardState, untilLocalMs: number): Promise<void> {
    return this.stopped ? Promise.resolve() : sleepShard(shard, untilLocalMs, (ms) => this.options.observer?.slept(ms))
  }

  /** Redis's clock now, as this scanner last measured it. */
  redisNow(): number {
    return this.clock.toRedis(Date.now())
  }

  private get logger(): Log {
    return this.options.logger ?? defaultLog()
  }
}
