// One function per route: read the request, call DelayQueue (which validates, ids included), shape the answer.
import type { APIGatewayProxyEventV2 } from 'aws-lambda'
import type { DelayQueue } from '../direct/delay-queue'
import { JobExistsError, JobNotFoundError, ScheduleNotFoundError, ValidationError } from '../errors'
import { validateJobId, validateScheduleId } from '../direct/id-rules'
import { validateBatch } from '../direct/validation'
import { validateWriteToken } from '../direct/write-token'
import { parseJson, rawJsonBody } from './body'
import { callerOf } from './caller'
import { errorBody } from './error-response'
import { BatchTooLargeError } from './errors'
import { json, jobLocation, noContent, scheduleLocation, type ApiResponse } from './response'
import type { RouteName } from './router'

export interface RouteOptions {
  /** Largest POST /jobs/batch body accepted, in bytes (413 above). */
  maxBatchBytes: number
}

/** How long one DELETE /jobs?tag= or DELETE /schedules?tag= keeps starting steps (src/store/tag-cancel.ts). */
export const CANCEL_BY_TAG_BUDGET_MS = 5_000
/** Script runs of one POST /jobs/run-due (each reads at most 500 jobs and 256 due buckets of one shard). */
export const RUN_DUE_RUNS_PER_REQUEST = 64

export type RouteHandler = (
  queue: DelayQueue,
  event: APIGatewayProxyEventV2,
  id: string | undefined,
  options: RouteOptions,
) => Promise<ApiResponse>

export const routes: Record<RouteName, RouteHandler> = {
  async createJob(queue, event) {
    const idempotencyKey = idempotencyKeyOf(event)
    const { replayed, replaced, ...job } = await queue.schedule(parseJson(rawJsonBody(event)), { idempotencyKey })
    // 200: the write went to the job stored under its id (onConflict replace, extend or debounce).
    if (replaced) return json(200, job, replayedHeader(replayed))
    return json(201, job, { location: jobLocation(job.id), ...replayedHeader(replayed) })
  },

  async createBatch(queue, event, _id, options) {
    // One key for the whole batch, kept with each job under its id: the batch sent again, whole or in part (the jobs
    // a passing refusal left), is answered job by job, each as its earlier attempt was.
    const idempotencyKey = idempotencyKeyOf(event)
    const raw = rawJsonBody(event)
    if (raw.bytes > options.maxBatchBytes) throw new BatchTooLargeError(raw.bytes, options.maxBatchBytes)
    const inputs = validateBatch(parseJson(raw))
    const results = await queue.scheduleMany(inputs, { idempotencyKey })
    // Per-job errors are our own (validation, size, conflict); anything else throws out of scheduleMany (500/503).
    const internal = { code: 'InternalError', message: 'internal error' }
    // A taken id shows the job that holds it, as a single create's 409 does: a retried batch can tell its own jobs.
    const answer = (r: (typeof results)[number]) =>
      !('error' in r)
        ? r
        : r.error instanceof JobExistsError
          ? { error: errorBody(r.error), job: r.error.existing }
          : { error: errorBody(r.error) ?? internal }
    return json(200, { results: results.map(answer) })
  },

  async listJobs(queue, event) {
    const query = event.queryStringParameters ?? {}
    const limit = query.limit ?? '50'
    if (!/^\d{1,3}$/.test(limit))
      throw new ValidationError([{ path: 'limit', message: 'must be an integer from 1 to 100' }])
    if (query.tag !== undefined) {
      if (query.queue !== undefined)
        throw new ValidationError([{ path: 'queue', message: 'cannot be combined with tag' }])
      const page = { limit: Number(limit), cursor: query.cursor || null }
      return json(200, await queue.listByTag(query.tag, page))
    }
    return json(
      200,
      await queue.listPending({
        queue: query.queue,
        limit: Number(limit),
        cursor: query.cursor ?? null,
        caller: callerOf(event),
      }),
    )
  },

  async getJob(queue, _event, id) {
    return found(await queue.get(id!), () => new JobNotFoundError(id!))
  },

  async putJob(queue, event, id) {
    // Checked before the body is read, so a bad id is the answer even with a bad body (DelayQueue checks it again).
    const jobId = validateJobId(id)
    const idempotencyKey = idempotencyKeyOf(event)
    const { replayed, ...job } = await queue.reschedule(jobId, parseJson(rawJsonBody(event)), { idempotencyKey })
    return saved(job, jobLocation(jobId), replayedHeader(replayed))
  },

  async deleteJob(queue, _event, id) {
    await queue.cancel(id!)
    return noContent()
  },

  async cancelByTag(queue, event) {
    const query = event.queryStringParameters ?? {}
    if (query.tag === undefined) throw new ValidationError([{ path: 'tag', message: 'is required' }])
    // Within the API function's 10 s: what is left after the budget is answered as not done, for another call.
    const result = await queue.cancelByTag(query.tag, { budgetMs: CANCEL_BY_TAG_BUDGET_MS })
    return json(200, { tag: query.tag, ...result })
  },

  async runJob(queue, _event, id) {
    return json(200, await queue.runNow(id!))
  },

  async runDueJobs(queue, event) {
    // Bounded per request (RUN_DUE_RUNS_PER_REQUEST): a larger backlog answers with a cursor to call again with.
    return json(200, await queue.runDue(parseJson(rawJsonBody(event)), { maxRuns: RUN_DUE_RUNS_PER_REQUEST }))
  },

  async stats(queue) {
    return json(200, await queue.stats())
  },

  async listSchedules(queue, event) {
    const query = event.queryStringParameters ?? {}
    const limit = query.limit ?? '50'
    if (!/^\d{1,3}$/.test(limit) || Number(limit) < 1 || Number(limit) > 100) {
      throw new ValidationError([{ path: 'limit', message: 'must be an integer from 1 to 100' }])
    }
    const tag = query.tag === undefined ? {} : { tag: query.tag }
    return json(200, await queue.listSchedules({ cursor: query.cursor || null, limit: Number(limit), ...tag }))
  },

  async getSchedule(queue, _event, id) {
    return found(await queue.getSchedule(id!), () => new ScheduleNotFoundError(id!))
  },

  async putSchedule(queue, event, id) {
    // As for putJob: the id before the body.
    const scheduleId = validateScheduleId(id)
    return saved(await queue.putSchedule(scheduleId, parseJson(rawJsonBody(event))), scheduleLocation(scheduleId))
  },

  async deleteSchedule(queue, _event, id) {
    await queue.deleteSchedule(id!)
    return noContent()
  },

  async deleteSchedulesByTag(queue, event) {
    const query = event.queryStringParameters ?? {}
    if (query.tag === undefined) throw new ValidationError([{ path: 'tag', message: 'is required' }])
    // As for cancelByTag: what is left after the budget is answered as not done, for another call.
    const result = await queue.deleteSchedulesByTag(query.tag, { budgetMs: CANCEL_BY_TAG_BUDGET_MS })
    return json(200, { tag: query.tag, ...result })
  },

  async pauseSchedule(queue, _event, id) {
    return json(200, await queue.pauseSchedule(id!, true))
  },

  async resumeSchedule(queue, _event, id) {
    return json(200, await queue.pauseSchedule(id!, false))
  },

  async listFlow(queue) {
    return json(200, { settings: await queue.flow.list() })
  },

  async putQueueFlow(queue, event, id) {
    return json(200, await queue.flow.change({ queue: id! }, parseJson(rawJsonBody(event))))
  },

  async putKeyFlow(queue, event, id) {
    return json(200, await queue.flow.change({ flowKey: id! }, parseJson(rawJsonBody(event))))
  },

  async putTagFlow(queue, event, id) {
    return json(200, await queue.flow.change({ tag: id! }, parseJson(rawJsonBody(event))))
  },
}

/** GET of a job or a schedule: 200 with its view, or its 404. */
function found(view: object | null, notFound: () => Error): ApiResponse {
  if (!view) throw notFound()
  return json(200, view)
}

/** PUT of a job or a schedule: 201 with where to look it up when the PUT created it, 200 when it replaced one. */
function saved({ created, ...view }: { created: boolean }, location: string, headers = {}): ApiResponse {
  return created ? json(201, view, { location, ...headers }) : json(200, view, headers)
}

/**
 * The Idempotency-Key request header of a job write (docs/api.md): checked before the body, like the id. API Gateway
 * (payload v2) hands header names in lower case.
 */
function idempotencyKeyOf(event: APIGatewayProxyEventV2): string | undefined {
  return validateWriteToken(event.headers?.['idempotency-key'], 'Idempotency-Key')
}

/** An answer given again for a write an earlier attempt with the same Idempotency-Key applied says so. */
function replayedHeader(replayed: true | undefined): Record<string, string> {
  return replayed ? { 'idempotent-replayed': 'true' } : {}
}
