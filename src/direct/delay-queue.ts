// DelayQueue: schedule, reschedule, cancel and look jobs up from application code, straight into Redis.
// The HTTP API (src/api/) is built on this class, so both accept and refuse exactly the same input.
import { loadConfig, type Config } from '../config'
import { createEngine, type Engine } from '../store/engine'
import type { ConnectOptions } from '../store/redis/redis'
import { FlowControl } from './flow-control'
import { type HeldReason, withHeldReason } from '../flow/flow-held-view'
import type { EnqueueResult, JobStore, JobView, QueueCounts, StoreStats } from '../store/job-store'
import { validateJobId, validateJobRef, writableId } from './id-rules'
import { validateJob, type JobInput } from './validation'
import { queuesAsConfigured } from '../store/stats'
import { decodePendingCursor } from '../store/pending-cursor'
import type { PendingPage, PendingQuery } from '../store/pending-page'
import { scanStartOptions } from '../on-demand/start/scan-start'
import { lambdaInvoker, ScanStarter, type ScanInvoker } from '../on-demand/start/scan-starter'
import { ScheduleStore } from '../store/schedule-store'
import type { ScheduleInput } from './schedule-validation'
import type { ScheduleListPage, ScheduleView } from './schedule-view'
import { RecurringSchedules } from './recurring-schedules'
import { scheduleMany, type BatchItemResult } from './schedule-many'
import { isoTime } from '../shared/iso-time'
import { requireIdWithKey, validateWriteToken, type WriteOptions } from './write-token'
import type { MoveTo, PromoteDueResult } from '../store/promote'
import { runDue, runNow, type RunDueInput, type RunDueResult, type RunNowAnswer } from './run-now'
import type { TagPage } from '../store/tag-page'
import type { TagCancelOptions, TagCancelResult } from '../store/tag-cancel'
import type { ScheduleTagDeleteOptions, ScheduleTagDeleteResult } from '../store/schedule-tag-delete'
import { cancelByTag, listByTag, type TagPageOptions } from './tag-actions'
import { validateLimit, validateQueueFilter } from './page-rules'
import type { ScheduledJob } from '../contract/job'

export type { ScheduledJob }

export type {
  BatchItemResult,
  JobInput,
  PromoteDueResult,
  RunDueInput,
  RunDueResult,
  RunNowAnswer,
  ScheduleInput,
  ScheduleListPage,
  ScheduleTagDeleteOptions,
  ScheduleTagDeleteResult,
  ScheduleView,
  TagCancelOptions,
  TagCancelResult,
  TagPage,
  WriteOptions,
}

export interface QueueStats extends StoreStats {
  /** Every configured queue (zeros included), plus any queue that still has jobs but is no longer configured. */
  queues: Record<string, QueueCounts>
}

/** The parts DelayQueue needs: what createEngine builds (or a test engine). */
export type DelayQueueEngine = Pick<Engine, 'config' | 'store'> & { close?(): Promise<void> }

export interface DelayQueueOptions {
  /**
   * On-demand scan mode: how to start the scan function when a job is due before the next scheduled scan and no
   * scanner runs. Default: an asynchronous Lambda invoke of SCAN_FUNCTION_NAME. Without either, jobs wait for the
   * next scheduled scan (up to a minute late).
   */
  scanInvoker?: ScanInvoker
  /**
   * The Scheduler-compatible API's own queue (src/scheduler-api/handler.ts): it may write the ids starting with
   * "scheduler:" that every other caller is refused (src/direct/id-rules.ts, writableId).
   */
  schedulerFrontDoor?: boolean
}

/** On-demand scan mode: what starts the scanner. Only that mode builds an invoker (else the Lambda SDK is not loaded). */
function scanStarterFor(config: Config, store: JobStore, scanInvoker: DelayQueueOptions['scanInvoker']) {
  if (config.scanMode !== 'on-demand') return undefined
  const { scanFunctionName } = config
  const invoker = scanInvoker ?? (scanFunctionName ? lambdaInvoker(config, scanFunctionName) : undefined)
  return invoker ? new ScanStarter(store, invoker, config.onDemandHorizonMs) : undefined
}

export class DelayQueue {
  readonly config: Config
  private readonly store: JobStore
  private readonly recurring: RecurringSchedules
  private readonly engine: DelayQueueEngine
  /** Whether close() should close the engine: only when this instance built it. */
  private readonly owned: boolean
  /** On-demand scan mode only. */
  private readonly starter?: ScanStarter
  readonly flow: FlowControl // pause, resume and rates of queues and flow keys (docs/flow-control.md)
  private readonly writable: (id: string) => string

  /** From a Config (connects to Redis; call close() when done), or from an engine built elsewhere. */
  constructor(source: Config | DelayQueueEngine, redisOptions: ConnectOptions = {}, options: DelayQueueOptions = {}) {
    const canStart = options.scanInvoker ? true : undefined // a given invoker starts scans without SCAN_FUNCTION_NAME
    const engine = 'store' in source ? source : createEngine(source, redisOptions, scanStartOptions(source, canStart))
    this.engine = engine
    this.owned = !('store' in source)
    this.store = engine.store
    this.config = engine.config
    this.writable = (id) => writableId(id, options.schedulerFrontDoor)
    this.starter = scanStarterFor(this.config, this.store, options.scanInvoker)
    const schedules = new ScheduleStore(engine.store.redis, engine.store.keys, engine.store.replication)
    this.recurring = new RecurringSchedules(schedules, this.config, this.starter, this.writable)
    this.flow = new FlowControl(engine.store, this.config)
  }

  /** From the environment (REDIS_URL, QUEUES, ...: see src/config.ts). */
  static fromEnv(env: Record<string, string | undefined> = process.env, redisOptions: ConnectOptions = {}): DelayQueue {
    return new DelayQueue(loadConfig(env), redisOptions)
  }

  /**
   * Schedule one job. Throws ValidationError, PayloadTooLargeError, or JobExistsError (carrying the existing job).
   * With an idempotency key (and an id), a call sent again after one that was applied answers as that one did.
   */
  async schedule(input: JobInput | unknown, options: WriteOptions = {}): Promise<ScheduledJob> {
    const writeToken = validateWriteToken(options.idempotencyKey, 'idempotencyKey')
    const job = { ...validateJob(input, this.config), writeToken }
    this.writable(job.id)
    requireIdWithKey(input, writeToken)
    const result = await this.store.enqueue(job)
    await this.starter?.afterEnqueue([result])
    return { ...scheduledAs(job, result), ...(result.status === 'replaced' ? { replaced: true as const } : {}) }
  }

  /**
   * Schedule many jobs; each succeeds or fails on its own and results come back in input order. Invalid items
   * are answered with their error and never reach Redis; the valid ones are stored. With an idempotency key (kept with
   * each job: every job needs an id), the call sent again, whole or in part, is answered job by job as it was.
   */
  scheduleMany(inputs: readonly (JobInput | unknown)[], options: WriteOptions = {}): Promise<BatchItemResult[]> {
    const writeToken = validateWriteToken(options.idempotencyKey, 'idempotencyKey')
    return scheduleMany({ config: this.config, store: this.store, starter: this.starter }, inputs, writeToken)
  }

  /**
   * Create or replace a job by id (new time, payload, queue). A body id, if given, must match. With an idempotency
   * key, a call sent again after one that was applied changes nothing (also once the job was dispatched) and answers
   * as that one did.
   */
  async reschedule(
    id: string,
    input: Omit<JobInput, 'id'> | unknown,
    options: WriteOptions = {},
  ): Promise<ScheduledJob & { created: boolean }> {
    const writeToken = validateWriteToken(options.idempotencyKey, 'idempotencyKey')
    const job = { ...validateJob(input, this.config, { id: this.writable(validateJobId(id)) }), writeToken }
    const result = await this.store.upsert(job)
    await this.starter?.afterEnqueue([result])
    return { ...scheduledAs(job, result), created: result.status === 'created' }
  }

  /** Run a pending job now, or at `to`: the same job, only its due time moves (409 while it is being sent). */
  runNow(id: string, to?: MoveTo): Promise<RunNowAnswer> {
    return runNow(this.store, this.starter, id, to)
  }

  /** Run now the pending jobs due before a time or with a tag, a share per call with a cursor (direct/run-now.ts). */
  runDue(input: RunDueInput | unknown, options: { maxRuns?: number } = {}): Promise<RunDueResult> {
    return runDue({ store: this.store, starter: this.starter, config: this.config }, input, options)
  }

  /** Cancel a pending job. Throws JobNotFoundError, or JobDispatchingError when it is being handed to SQS. */
  async cancel(id: string): Promise<void> {
    await this.store.cancel(validateJobRef(id))
  }

  /**
   * A stored job (pending or dead), a dispatched one's receipt (status "dispatched", DISPATCH_RECEIPT_TTL_MS), or null
   * (never existed, cancelled, or dispatched longer ago).
   */
  async get(id: string): Promise<(JobView & { held?: HeldReason }) | null> {
    const view = await this.store.get(validateJobRef(id))
    // A job flow control holds says so (`held`): it has left the due list of listPending.
    return view && withHeldReason(this.store.redis, this.store.keys, view)
  }

  /**
   * A page of pending jobs in due-time order, one target queue or all (no payloads): `limit` 1-100 (default 50), `cursor`
   * the previous page's, `caller` who asks (src/store/deep-page-rate.ts). Throws ValidationError naming the field.
   */
  async listPending(options: PendingQuery = {}): Promise<PendingPage> {
    return this.store.listPending(validPendingQuery(options, this.config))
  }

  /** The jobs with a tag, a page at a time; cancel them all, in bounded steps (src/direct/tag-actions.ts). */
  readonly listByTag = (tag: string, options: TagPageOptions = {}) => listByTag(this.store, tag, options)
  readonly cancelByTag = (tag: string, options: TagCancelOptions = {}) => cancelByTag(this.store, tag, options)

  async stats(): Promise<QueueStats> {
    const stats = await this.store.stats()
    return { ...stats, queues: queuesAsConfigured(Object.keys(this.config.queues), stats.queues) }
  }

  /**
   * Create or replace a recurring schedule. Its next occurrence is a pending job ("<id>@<epoch ms>") at once; a
   * replace moves it to the new rule's next time.
   */
  putSchedule(id: string, input: ScheduleInput | unknown): Promise<ScheduleView & { created: boolean }> {
    return this.recurring.put(id, input)
  }

  getSchedule(id: string): Promise<ScheduleView | null> {
    return this.recurring.get(id)
  }

  /** Schedules in id order, `limit` (1-100) at a time; pass the returned cursor back for the next page. */
  listSchedules(options: { cursor?: string | null; limit?: number; tag?: string } = {}): Promise<ScheduleListPage> {
    return this.recurring.list(options)
  }

  /** Remove a schedule: no occurrence is created after this returns. Throws ScheduleNotFoundError. */
  deleteSchedule(id: string): Promise<void> {
    return this.recurring.delete(id)
  }
  /** Every schedule with the tag, each as deleteSchedule; with `budgetMs`, `done: false` says some are left. */
  readonly deleteSchedulesByTag: RecurringSchedules['deleteByTag'] = (...a) => this.recurring.deleteByTag(...a)

  /** Pause (no occurrence pending) or resume (the next one from now) a schedule. Throws ScheduleNotFoundError. */
  pauseSchedule(id: string, paused = true): Promise<ScheduleView> {
    return this.recurring.pause(id, paused)
  }

  /** Waits for scan starts still under way (on-demand mode), then closes the Redis connection if this opened it. */
  async close(): Promise<void> {
    await this.starter?.settled()
    if (this.owned) await this.engine.close?.()
  }
}

/** A write's answer: the job as this write stored it, or, for a replay, as the write it repeats stored it. */
function scheduledAs(
  job: { id: string; queue: string; groupId?: string; tags?: readonly string[] },
  result: EnqueueResult,
): ScheduledJob {
  const groupId = result.groupId ?? job.groupId
  return {
    id: job.id,
    queue: result.queue ?? job.queue,
    status: 'scheduled',
    runAt: isoTime(result.dueMs),
    createdAt: isoTime(result.createdAtMs),
    ...(groupId ? { groupId } : {}),
    ...(job.tags?.length && !result.replayed ? { tags: [...job.tags] } : {}),
    ...(result.replayed ? { replayed: true as const } : {}),
  }
}

/** A pending-list query with its limit, checked before anything is read: ValidationError naming the field. */
function validPendingQuery(options: PendingQuery, config: Config): PendingQuery & { limit: number } {
  const limit = validateLimit(options.limit ?? 50)
  validateQueueFilter(config, options.queue)
  if (options.cursor) decodePendingCursor(options.cursor)
  return { ...options, limit }
}
