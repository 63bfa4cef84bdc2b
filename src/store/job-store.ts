// The job store: what the API (and any application that enqueues directly) does to jobs in Redis.
// Scanner-side operations (claim / ack / release) live in src/scan/claims/leases.ts.
import { DelayQueueError, type ExistingJob } from '../errors'
import { scriptError } from './script-errors'
import type { Keyspace } from './keys'
import { verifyLayout } from './layout'
import { decodeDispatchError, type JobState } from './job-state'
import type { NewJob } from './new-job'
import { decodeRecord, groupLine } from './record'
import { readPendingPage, type PendingPage, type PendingQuery } from './pending-page'
import { decodeReceipt, receiptHours, type DispatchReceipt } from './receipt'
import { readDelivery } from './delivery-record'
import { replayedResult } from './replayed-write'
import { guard } from './redis/redis-errors'
import { readStats, type StoreStats } from './stats'
import type { ReplicationOptions } from './redis/replication'
import { writeScript } from './redis/write'
import type { ScanStartOptions } from '../on-demand/start/scan-start'
import { CancelStatus, cancelCall, decodeCancel } from './scripts/cancel'
import { decodeEnqueue, enqueueCall, type EnqueueParams, EnqueueStatus, type EnqueueReply } from './scripts/enqueue'
import { decodeGet, getCall } from './scripts/get'
import { enqueueMode } from './upsert-modes'
import { rideOut } from './redis/ride-out'
import { runScript, type ScriptedClient } from './scripts'
import { writePerShard } from './redis/shard-writes'
import { isoTime } from '../shared/iso-time'
import type { DispatchError, JobStatus, JobView } from '../contract/job'

export type { DispatchError, JobStatus, JobView }

export type { NewJob } from './new-job'

export interface EnqueueResult {
  id: string
  status: 'created' | 'replaced'
  dueMs: number
  createdAtMs: number
  version: number
  /** On-demand scan mode: this enqueue took the start guard of its shard; the caller should start a scanner. */
  startScanner: boolean
  /**
   * An earlier attempt of this write (the same write token) was applied: nothing changed now, and this answers as it
   * did (`dispatched`: SQS has taken the job since, and its receipt answered).
   */
  replayed?: 'stored' | 'dispatched'
  /** A replay: the queue of the job that write stored (its record, or its receipt once dispatched). */
  queue?: string
  /** A replay of a still stored job: its group id ("" for none); absent once dispatched (a receipt keeps none). */
  groupId?: string
}

export type { QueueCounts, StoreStats } from './stats'

type Mode = 'insert' | 'upsert'

export class JobStore {
  constructor(
    readonly redis: ScriptedClient,
    readonly keys: Keyspace,
    /** On-demand scan mode: when the enqueue script should ask for a scanner (src/on-demand/start/scan-start.ts). */
    private readonly scanStart: ScanStartOptions | undefined,
    /** Replicas that confirm each write before it is answered (REDIS_WAIT_REPLICAS, as the engine applies it). */
    readonly replication: ReplicationOptions,
    /** DISPATCH_RECEIPT_TTL_MS: how far back get() looks for a dispatched job's receipt; 0: not at all. */
    readonly receiptTtlMs = 0,
  ) {}

  /** Schedule a new job. Throws JobExistsError (carrying the existing job's view) when the id is taken. */
  async enqueue(job: NewJob): Promise<EnqueueResult> {
    await this.ready()
    return this.writeJob(job, 'insert')
  }

  /** Create or replace (reschedule, new payload). Throws JobDispatchingError while a scanner holds it. */
  async upsert(job: NewJob): Promise<EnqueueResult> {
    await this.ready()
    return this.writeJob(job, 'upsert')
  }

  /** The key layout this store was configured with is the one its jobs use (src/store/layout.ts); checked once. */
  ready(): Promise<void> {
    return guard(verifyLayout(this.redis, this.keys))
  }

  /**
   * Many jobs in one round trip per shard. Each job succeeds or fails on its own; results come back in input order.
   * Repeated ids within one call behave as if sent one after the other.
   */
  async enqueueMany(jobs: readonly NewJob[], mode: Mode = 'insert'): Promise<(EnqueueResult | DelayQueueError)[]> {
    await this.ready()
    const written = writePerShard(
      this.redis,
      this.replication,
      jobs.map((job) => {
        const location = this.keys.locate(job.id)
        return { shard: location.shard, call: enqueueCall(location, this.enqueueParams(job, mode)) }
      }),
    )
    return guard(
      written.then((results) =>
        results.map(({ reply: [err, reply], unconfirmed }, i) => {
          if (err instanceof DelayQueueError) return err
          if (err) throw err
          try {
            return this.confirmedWrite(enqueueResult(jobs[i]!, reply), unconfirmed)
          } catch (e) {
            if (!(e instanceof DelayQueueError)) throw e
            return e
          }
        }),
      ),
    )
  }

  /**
   * A stored job (scheduled, being dispatched, retrying or dead), a dispatched one's receipt while it is kept
   * (`receiptTtlMs`), or null.
   */
  async get(id: string): Promise<JobView | null> {
    await this.ready()
    const call = getCall(this.keys.locate(id), id, receiptHours(Date.now(), this.receiptTtlMs))
    const found = decodeGet(await guard(rideOut(this.redis, () => runScript(this.redis, call))))
    if (!found) return null
    if (found.state === 'dispatched') {
      const delivery = await guard(readDelivery(this.redis, this.keys, id))
      return { ...dispatchedView(id, decodeReceipt(found.receipt)), ...(delivery ? { delivery } : {}) }
    }
    return toView(id, found.state, found.record, found.score, found.attempt, found.lastError)
  }

  /** A page of pending jobs in due-time order (src/store/pending-page.ts). */
  async listPending(options: PendingQuery & { limit: number }): Promise<PendingPage> {
    await this.ready()
    return guard(readPendingPage(this.redis, this.keys, options))
  }

  /** Cancel a job that is not in SQS yet. Throws JobNotFoundError, or JobDispatchingError when too late. */
  async cancel(id: string): Promise<void> {
    await this.ready()
    const location = this.keys.locate(id)
    const { reply, unconfirmed } = await writeScript(
      this.redis,
      this.replication,
      location.shard,
      cancelCall(location, id),
    )
    const d = decodeCancel(reply)
    if (d.status !== CancelStatus.Cancelled) throw scriptError(d.code, id)
    this.confirmed(undefined, unconfirmed)
  }

  /** A write that changed something is only a success once replicated (when that is asked for). */
  private confirmed<T>(result: T, unconfirmed: DelayQueueError | undefined): T {
    if (unconfirmed) throw unconfirmed
    return result
  }

  /**
   * An enqueue's result, once replicated. A write answered from an earlier attempt's receipt changed nothing and
   * has nothing to confirm (SQS holds the job); one answered from the stored job rewrote its record unchanged, so the
   * WAIT confirms the earlier attempt's write, and its verdict stands.
   */
  private confirmedWrite(result: EnqueueResult, unconfirmed: DelayQueueError | undefined): EnqueueResult {
    return this.confirmed(result, result.replayed === 'dispatched' ? undefined : unconfirmed)
  }

  /** Counts per target queue, leased and dead totals, and the earliest due time (src/store/stats.ts). */
  async stats(): Promise<StoreStats> {
    await this.ready()
    return guard(readStats(this.redis, this.keys))
  }

  /**
   * One job's enqueue, written and its reply read: the call is built whole before the write, and the reply read after
   * it, so a write passes through here once.
   */
  private async writeJob(job: NewJob, mode: Mode): Promise<EnqueueResult> {
    const params = this.enqueueParams(job, mode)
    const location = this.keys.locate(job.id)
    const call = enqueueCall(location, params)
    const { reply, unconfirmed } = await writeScript(this.redis, this.replication, location.shard, call)
    return this.confirmedWrite(enqueueResult(job, reply), unconfirmed)
  }

  /** What enqueue takes for a job: its write's mode, its group line, and where to look for its token's receipt. */
  private enqueueParams(job: NewJob, mode: Mode): EnqueueParams {
    return {
      ...job,
      mode: job.onConflict ? enqueueMode(job.onConflict) : mode,
      groupId: groupLine(job.groupId, job.flowKey),
      scanStart: this.scanStart,
      receiptHours: job.writeToken ? receiptHours(Date.now(), this.receiptTtlMs) : [],
    }
  }
}

/** An enqueue's reply as its result: a refusal thrown as its error, a replay answered as the write it repeats. */
function enqueueResult(job: NewJob, reply: unknown): EnqueueResult {
  const { id } = job
  const d = decodeEnqueue(reply as EnqueueReply)
  if (d.status === 'refused') {
    const { code, existing: e } = d
    throw scriptError(code, id, e ? existingJob(id, e.state, e.record, e.score) : undefined)
  }
  if (d.status === EnqueueStatus.ReplayedStored || d.status === EnqueueStatus.ReplayedDispatched) {
    return replayedResult(id, d)
  }
  const { dueMs, createdAtMs, version, startScanner } = d
  return {
    id,
    status: d.status === EnqueueStatus.Created ? 'created' : 'replaced',
    dueMs,
    createdAtMs,
    version,
    startScanner,
  }
}

/**
 * A refused create's view of the job that holds the id: never its payload, nor whether it equals the one sent (that
 * answer let a caller allowed only to create test guesses of a payload; a create's own retry carries its key).
 */
function existingJob(id: string, state: JobState, record: string, score: number): ExistingJob {
  const job = decodeRecord(record)
  return {
    id,
    queue: job.queue,
    status: state === 'retrying' ? 'scheduled' : state,
    runAt: isoTime(score),
    createdAt: isoTime(job.createdAtMs),
    ...(job.groupId ? { groupId: job.groupId } : {}),
  }
}

function toView(id: string, state: JobState, record: string, score: number, attempt: number, lastError: string) {
  const job = decodeRecord(record)
  const view: JobView = {
    id,
    queue: job.queue,
    runAt: isoTime(score),
    // A job waiting for a dispatch retry is scheduled again: runAt is its next attempt.
    status: state === 'retrying' ? 'scheduled' : state,
    payload: JSON.parse(job.payloadJson),
    ...(job.groupId ? { groupId: job.groupId } : {}),
    ...(job.tags ? { tags: job.tags } : {}),
    ...(job.flowKey ? { flowKey: job.flowKey } : {}),
    createdAt: isoTime(job.createdAtMs),
  }
  if (lastError) {
    const e = decodeDispatchError(lastError)
    view.attempts = attempt || e.attempts
    view.lastError = {
      attempts: e.attempts,
      at: isoTime(e.at),
      message: e.message,
      ...(e.maybeSent ? { maybeSent: true as const } : {}),
    }
  }
  return view
}

function dispatchedView(id: string, r: DispatchReceipt): JobView {
  const dueAt = isoTime(r.dueMs)
  return {
    id,
    queue: r.queue,
    runAt: dueAt,
    status: 'dispatched',
    dueAt,
    acceptedAt: isoTime(r.acceptedAtMs),
    messageId: r.messageId,
    attempts: r.attempts,
    createdAt: isoTime(r.createdAtMs),
  }
}
