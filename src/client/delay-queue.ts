// DelayQueue: schedule, reschedule, cancel and look jobs up from application code, straight into Redis.
// The HTTP API (src/api/) is built on this class, so both accept and refuse exactly the same input.
import { loadConfig, type Config } from '../config'
import { createEngine, type Engine } from '../store/engine'
import { DelayQueueError } from '../errors'
import type { ConnectOptions } from '../store/redis'
import type { JobStore, JobView, QueueCounts, StoreStats } from '../store/job-store'
import { validateJob, validateJobId, validateJobRef } from './validation'
import { scanStartOptions } from '../store/scan-start'
import { lambdaInvoker, ScanStarter, type ScanInvoker } from './scan-starter'
import { ScheduleChangedError, ScheduleNotFoundError } from '../errors'
import { ScheduleStore } from '../store/schedule-store'
import { validateSchedule, validateScheduleId, type ScheduleInput } from './schedule-validation'
import { scheduleView, type ScheduleListPage, type ScheduleView } from './schedule-view'

export type { ScheduleInput, ScheduleListPage, ScheduleView }

/** What callers send: the job input of docs/api.md. */
export interface JobInput {
  queue: string
  payload: unknown
  delayMs?: number
  /** ISO-8601 with a zone, or epoch ms. */
  runAt?: string | number
  id?: string
  groupId?: string
}

/** A job as stored, without its payload (answers to schedule / reschedule). */
export interface ScheduledJob {
  id: string
  queue: string
  status: 'scheduled'
  runAt: string
  createdAt: string
  groupId?: string
}

export type BatchItemResult = { id: string; status: 'scheduled' } | { error: DelayQueueError }

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
}

// The store pipelines one round trip per shard; chunks keep a huge scheduleMany from building one giant pipeline.
const CHUNK = 100

export class DelayQueue {
  readonly config: Config
  private readonly store: JobStore
  private readonly schedules: ScheduleStore
  private readonly engine: DelayQueueEngine
  /** Whether close() should close the engine: only when this instance built it. */
  private readonly owned: boolean
  /** On-demand scan mode only. */
  private readonly starter?: ScanStarter

  /** From a Config (connects to Redis; call close() when done), or from an engine built elsewhere. */
  constructor(source: Config | DelayQueueEngine, redisOptions: ConnectOptions = {}, options: DelayQueueOptions = {}) {
    // A given invoker can start the scanner even when SCAN_FUNCTION_NAME is not set.
    const canStart = options.scanInvoker ? true : undefined
    const engine = 'store' in source ? source : createEngine(source, redisOptions, scanStartOptions(source, canStart))
    this.engine = engine
    this.owned = !('store' in source)
    this.store = engine.store
    this.schedules = new ScheduleStore(engine.store.redis, engine.store.keys, engine.store.replication)
    this.config = engine.config
    // Only on-demand mode builds an invoker: the Lambda SDK client is not even loaded otherwise.
    const { scanMode, scanFunctionName } = this.config
    if (scanMode === 'on-demand') {
      const invoker =
        options.scanInvoker ?? (scanFunctionName ? lambdaInvoker(this.config, scanFunctionName) : undefined)
      if (invoker) this.starter = new ScanStarter(this.store, invoker, this.config.onDemandHorizonMs)
    }
  }

  /** From the environment (REDIS_URL, QUEUES, ...: see src/config.ts). */
  static fromEnv(env: Record<string, string | undefined> = process.env, redisOptions: ConnectOptions = {}): DelayQueue {
    return new DelayQueue(loadConfig(env), redisOptions)
  }

  /** Schedule one job. Throws ValidationError, PayloadTooLargeError, or JobExistsError (carrying the existing job). */
  async schedule(input: JobInput | unknown): Promise<ScheduledJob> {
    const job = validateJob(input, this.config)
    const result = await this.store.enqueue(job)
    await this.starter?.afterEnqueue([result])
    return scheduled(job.id, job.queue, result.dueMs, result.createdAtMs, job.groupId)
  }

  /**
   * Schedule many jobs; each succeeds or fails on its own and results come back in input order. Invalid items
   * are answered with their error and never reach Redis; the valid ones are stored.
   */
  async scheduleMany(inputs: readonly (JobInput | unknown)[]): Promise<BatchItemResult[]> {
    const results: BatchItemResult[] = []
    for (let start = 0; start < inputs.length; start += CHUNK) {
      results.push(...(await this.scheduleChunk(inputs.slice(start, start + CHUNK))))
    }
    return results
  }

  /** Create or replace a job by id (new time, payload, queue). A body id, if given, must match. */
  async reschedule(id: string, input: Omit<JobInput, 'id'> | unknown): Promise<ScheduledJob & { created: boolean }> {
    const job = validateJob(input, this.config, { id: validateJobId(id) })
    const result = await this.store.upsert(job)
    await this.starter?.afterEnqueue([result])
    return {
      ...scheduled(job.id, job.queue, result.dueMs, result.createdAtMs, job.groupId),
      created: result.status === 'created',
    }
  }

  /** Cancel a pending job. Throws JobNotFoundError, or JobDispatchingError when it is being handed to SQS. */
  async cancel(id: string): Promise<void> {
    await this.store.cancel(validateJobRef(id))
  }

  /** A pending job, or null (never existed, cancelled, or already handed to SQS). */
  async get(id: string): Promise<JobView | null> {
    return this.store.get(validateJobRef(id))
  }

  async stats(): Promise<QueueStats> {
    const stats = await this.store.stats()
    const queues: Record<string, QueueCounts> = {}
    for (const name of Object.keys(this.config.queues)) queues[name] = { pending: 0, dead: 0, dispatched: 0 }
    for (const [name, counts] of Object.entries(stats.queues)) {
      if (Object.hasOwn(this.config.queues, name) || counts.pending > 0 || counts.dead > 0) {
        queues[name] = { ...(queues[name] ?? { pending: 0, dead: 0, dispatched: 0 }), ...counts }
      }
    }
    return { ...stats, queues }
  }

  /**
   * Create or replace a recurring schedule. Its next occurrence is a pending job ("<id>@<epoch ms>") at once; a
   * replace moves it to the new rule's next time.
   */
  async putSchedule(id: string, input: ScheduleInput | unknown): Promise<ScheduleView & { created: boolean }> {
    const { created, schedule } = await this.schedules.put(validateSchedule(id, input, this.config))
    await this.starter?.afterSchedule(id, schedule.pendingMs)
    return { ...scheduleView(id, schedule), created }
  }

  async getSchedule(id: string): Promise<ScheduleView | null> {
    const schedule = await this.schedules.get(validateScheduleId(id))
    return schedule && scheduleView(id, schedule)
  }

  /** Schedules in id order, `limit` (1-100) at a time; pass the returned cursor back for the next page. */
  async listSchedules(options: { cursor?: string | null; limit?: number } = {}): Promise<ScheduleListPage> {
    const cursor = options.cursor ? validateScheduleId(options.cursor) : null
    const page = await this.schedules.list(cursor, options.limit ?? 50)
    return { schedules: page.schedules.map((s) => scheduleView(s.id, s.schedule)), cursor: page.cursor }
  }

  /** Remove a schedule: no occurrence is created after this returns. Throws ScheduleNotFoundError. */
  async deleteSchedule(id: string): Promise<void> {
    await this.schedules.delete(validateScheduleId(id))
  }

  /** Pause (no occurrence pending) or resume (the next one from now) a schedule. Throws ScheduleNotFoundError. */
  async pauseSchedule(id: string, paused = true): Promise<ScheduleView> {
    validateScheduleId(id)
    // Read, then write over exactly that version; a concurrent write makes us read again.
    for (let attempt = 0; ; attempt++) {
      const current = await this.schedules.get(id)
      if (!current) throw new ScheduleNotFoundError(id)
      try {
        const spec = { ...current.spec, paused }
        const { schedule } = await this.schedules.put({ id, spec, payloadJson: current.payloadJson }, current.version)
        await this.starter?.afterSchedule(id, schedule.pendingMs)
        return scheduleView(id, schedule)
      } catch (e) {
        if (!(e instanceof ScheduleChangedError) || attempt >= 3) throw e
      }
    }
  }

  /** Closes the Redis connection if this instance opened it. */
  async close(): Promise<void> {
    if (this.owned) await this.engine.close?.()
  }

  private async scheduleChunk(inputs: readonly unknown[]): Promise<BatchItemResult[]> {
    const results: BatchItemResult[] = new Array(inputs.length)
    const valid: { index: number; job: ReturnType<typeof validateJob> }[] = []
    inputs.forEach((input, index) => {
      try {
        valid.push({ index, job: validateJob(input, this.config) })
      } catch (e) {
        if (!(e instanceof DelayQueueError)) throw e
        results[index] = { error: e }
      }
    })
    const stored = await this.store.enqueueMany(valid.map((v) => v.job))
    await this.starter?.afterEnqueue(stored)
    stored.forEach((r, k) => {
      results[valid[k]!.index] = r instanceof DelayQueueError ? { error: r } : { id: r.id, status: 'scheduled' }
    })
    return results
  }
}

function scheduled(id: string, queue: string, dueMs: number, createdAtMs: number, groupId?: string): ScheduledJob {
  return {
    id,
    queue,
    status: 'scheduled',
    runAt: new Date(dueMs).toISOString(),
    createdAt: new Date(createdAtMs).toISOString(),
    ...(groupId ? { groupId } : {}),
  }
}
