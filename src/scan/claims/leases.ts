// Scanner-side operations on a shard: claim due jobs under a lease, then ack (in SQS) or release (SQS refused).
import { parseOccurrenceId } from '../../recurrence/occurrence-id'
import { newToken } from '../../store/ids'
import type { Keyspace, ShardKeys } from '../../store/keys'
import { decodeRecordInto } from '../../store/record'
import { ackCall, type Settlement } from '../../store/scripts/ack'
import { decodeRelease, releaseCall, type Refusal } from '../../store/scripts/release'
import { claimCall } from '../../store/scripts/claim'
import { rideOut } from '../../store/redis/ride-out'
import { runScript, type ScriptedClient } from '../../store/scripts'
import { guard } from '../../store/redis/redis-errors'
import { heldBackAt, retryAtOf, retryDelayMs } from './backoff'
import { ShardClocks } from '../loop/clock'
import type { HeldBehind } from '../dispatch/lane'
import { ackOccurrences } from './occurrence-ack'
import { withReceipts } from './ack-receipts'
import type { ClaimedJob, ClaimResult } from './claimed-job'
import { fencedClaim } from './claim-fence'
import type { ReplicationOptions } from '../../store/redis/replication'

export interface LeaseOptions {
  leaseMs: number
  maxAttempts: number
  backoffBaseMs: number
  backoffMaxMs: number
  /**
   * DISPATCH_WINDOW_MS: the scanner claims next at the earliest due time + this window (a claim's hints cover the
   * buckets due by then), and occurrences of recurring schedules are acked up to this much after they were due.
   */
  windowMs?: number
  /**
   * With a window, claim as soon as ten jobs are due (the reply's fullAt). Only when every job goes to one standard
   * queue: ten jobs bound for several queues (or a FIFO queue's lanes) fill no request, and holding them for the
   * window is what lets each queue's jobs share one. Default true.
   */
  fullRequests?: boolean
  /**
   * This process's clock (default Date.now; tests skew it). It only measures: every claim maps it to Redis's clock,
   * and decisions about time (an occurrence's successor) use Redis's.
   */
  localClock?: () => number
  /** DISPATCH_RECEIPT_TTL_MS: how long the ack keeps a receipt of each job it forgets; 0 or absent: none. */
  receiptTtlMs?: number
  /**
   * The engine's replication (REDIS_WAIT_REPLICAS): a claim's jobs are sent only once a replica confirmed the claim
   * (src/scan/claims/claim-fence.ts). Absent: claims are not confirmed (tests on a single node).
   */
  replication?: ReplicationOptions
}

export type { Settlement }

/**
 * Buckets due within this long after the next claim are handed back as hints for it (plus the dispatch window,
 * which that claim also takes). Long enough to cover the scanner's sleep between claims in a steady stream, short
 * enough that an idle or sparse shard returns a single hint (without full requests: with them, an idle shard's claim
 * returns the buckets due within the window of its next job, up to the claim's limit, to know when they fill one).
 */
const HINT_LOOKAHEAD_MS = 25

/** SendMessageBatch takes at most 10 entries: that many due jobs end a dispatch window early. */
const FULL_REQUEST_JOBS = 10

export class Leases {
  /** Each shard's primary has its own clock (Cluster masters, a primary after a failover): src/scan/loop/clock.ts. */
  private readonly clocks = new ShardClocks()
  private readonly localNow: () => number

  constructor(
    readonly redis: ScriptedClient,
    readonly options: LeaseOptions,
    /** Where schedules live: needed to ack occurrences of recurring schedules (their acks create the next one). */
    readonly keys?: Keyspace,
  ) {
    this.localNow = options.localClock ?? Date.now
  }

  /** Redis's clock now on `shard`'s primary, or the one claimed last (this process's until a first claim). */
  redisNowMs(shard?: number): number {
    return this.clocks.of(shard ?? -1).toRedis(this.localNow())
  }

  /** The earliest buckets of a shard: hints for a first claim. */
  async seedHints(shard: ShardKeys, count: number): Promise<string[]> {
    return guard(this.redis.zrange(shard.index, '0', String(count - 1)))
  }

  /**
   * Leases up to `limit` due jobs; hints for the next claim cover the buckets due by then (`windowMs`). `fullBy`: the
   * previous result's fullAtMs when this claim is for the full request it announced (it then stops there).
   */
  async claim(
    shard: ShardKeys,
    hints: readonly string[],
    limit: number,
    fullBy?: number,
    flow?: { paces: string; epochWanted: boolean },
  ): Promise<ClaimResult> {
    const token = newToken()
    const leaseDeadline = Date.now() + this.options.leaseMs
    const { leaseMs, maxAttempts } = this.options
    const windowMs = this.options.windowMs ?? 0
    const fullRequests = windowMs > 0 && this.options.fullRequests !== false
    const call = claimCall(shard, {
      limit,
      leaseMs,
      token,
      maxAttempts,
      hintCap: limit,
      lookaheadMs: HINT_LOOKAHEAD_MS + windowMs,
      fullCount: fullRequests ? FULL_REQUEST_JOBS : 0,
      fullBy: fullRequests ? (fullBy ?? 0) : 0,
      windowMs,
      paces: flow?.paces,
      epochWanted: flow?.epochWanted,
      hints,
    })
    const sentAt = this.localNow()
    const { forEachJob, ...outcome } = await fencedClaim(this.redis, this.options.replication, shard, call, {
      token,
      maxAttempts,
    })
    this.clocks.observe(shard.shard, outcome.redisNowMs, sentAt, this.localNow())
    const jobs: ClaimedJob[] = []
    const claimedAtMs = outcome.redisNowMs
    const n = shard.shard
    forEachJob((id, record, dueMs, attempt, orderMs) => {
      const lease = { id, dueMs, orderMs, claimedAtMs, attempt, token, shard: n, leaseDeadline }
      jobs.push(decodeRecordInto(record, lease))
    })
    return { ...outcome, jobs }
  }

  /** Forget jobs SQS accepted (occurrences of schedules: and create their next one), each with its dispatch receipt.
   * Returns how many this lease still held. */
  async ack(shard: ShardKeys, items: readonly (Settlement & Partial<ClaimedJob>)[]): Promise<number> {
    if (items.length === 0) return 0
    const { settlements, plan } = withReceipts(items, this.options.receiptTtlMs ?? 0)
    const occurrences: typeof settlements = []
    const jobs: typeof settlements = []
    for (const s of settlements) (parseOccurrenceId(s.id) === null ? jobs : occurrences).push(s)
    const ackJobs = async () => {
      if (jobs.length === 0) return 0
      const call = ackCall(shard, jobs, plan)
      return Number(await guard(rideOut(this.redis, () => runScript(this.redis, call))))
    }
    if (occurrences.length === 0) return ackJobs()
    if (!this.keys) throw new Error('Leases needs the Keyspace to ack occurrences of schedules')
    const [jobsAcked, acked] = await Promise.all([
      ackJobs(),
      ackOccurrences(this.redis, this.keys, shard, occurrences, {
        redisNowMs: this.redisNowMs(shard.shard),
        windowMs: this.options.windowMs ?? 0,
        receipts: plan,
      }),
    ])
    return jobsAcked + acked
  }

  /**
   * When a refused job is tried again (Redis ms, src/scan/claims/backoff.ts), on its own shard's primary's clock; a
   * held-back FIFO job: its blocker's figure + its place, on any shard (its order: src/scan/loop/fifo-merge.ts).
   */
  retryAt(job: ClaimedJob, after?: HeldBehind): number {
    if (after) return heldBackAt(after, this.options, this.redisNowMs(after.job.shard))
    return retryAtOf(job, this.options, this.redisNowMs(job.shard))
  }

  /** Redis time on `shard`'s primary -> this process's clock (from the offset that shard's claims measured). */
  localMs(redisMs: number, shard?: number): number {
    return this.clocks.of(shard ?? -1).toLocal(redisMs)
  }

  /**
   * Give back jobs SQS did not take: retried at `retryAtMs` (Redis ms, absolute: what the scanner passes, retryAt()),
   * or `retryInMs` after the release (default: the backoff of their attempt, jittered). A
   * refusal that is the job's fault (`jobsFault`, the default) sends it to the dead set after the last attempt; a
   * transient failure (SQS down, throttled) never does. An occurrence whose schedule was deleted, paused or replaced
   * meanwhile is retired instead (lua/release.lua).
   */
  async release(shard: ShardKeys, items: readonly ReleaseItem[]): Promise<ReleaseResult> {
    if (items.length === 0) return { released: 0, dead: 0, retired: 0 }
    const refusals = refusalsOf(items, this.options)
    const soonestRetryAtMs = soonestRetryAt(refusals, this.redisNowMs(shard.shard))
    const call = releaseCall(shard, {
      maxAttempts: this.options.maxAttempts,
      maxAheadMs: maxAheadMs(this.options),
      refusals,
    })
    const { released, dead, deadIds, retired } = decodeRelease(
      await guard(rideOut(this.redis, () => runScript(this.redis, call))),
    )
    return { released, dead, ...(dead + retired ? { deadIds } : {}), retired, soonestRetryAtMs }
  }
}

export interface ReleaseResult {
  released: number
  dead: number
  deadIds?: string[]
  retired: number
  /** The soonest retry time the release asked for (Redis ms). */
  soonestRetryAtMs?: number
}

/**
 * The soonest retry time asked for (Redis ms), from the times sent: a time given that was not finite is replaced
 * there by a delay after the release (refusalsOf).
 */
function soonestRetryAt(refusals: readonly Refusal[], nowMs: number): number {
  return Math.min(...refusals.map((r) => r.retryAtMs ?? nowMs + (r.retryInMs ?? 0)))
}

export type ReleaseItem = Settlement & {
  attempt?: number
  error: string
  jobsFault?: boolean
  /** Redis ms, absolute. */
  retryAtMs?: number
  retryInMs?: number
  maybeSent?: boolean
}

/**
 * A retry time lies at most the longest backoff and a lease (a FIFO job's place behind its blocker) ahead of Redis's
 * clock, a give-back's at most a window; further out, the scanner's reading of the shard's clock was wrong
 * (lua/release.lua moves such times earlier).
 */
function maxAheadMs(o: LeaseOptions): number {
  return o.backoffMaxMs + o.leaseMs + (o.windowMs ?? 0)
}

/** The release's refusals: retried at `retryAtMs`, else `retryInMs` (or the attempt's backoff) after the release. */
function refusalsOf(items: readonly ReleaseItem[], options: LeaseOptions): Refusal[] {
  return items.map(({ retryAtMs, retryInMs, ...i }) => ({
    ...i,
    error: i.error.slice(0, 1000),
    jobsFault: i.jobsFault !== false,
    // A retry time that is not a finite number (a clock not measured yet) falls back to the attempt's backoff.
    ...(retryAtMs === undefined || !Number.isFinite(retryAtMs)
      ? { retryInMs: retryInMs ?? retryDelayMs(i.attempt ?? 1, options) }
      : { retryAtMs: Math.round(retryAtMs) }),
  }))
}
