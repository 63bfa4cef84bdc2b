// DelayQueueApiClient: the deployed API (Function URL or HTTP API) from another service, with the same methods as
// DelayQueue (which talks to Redis directly). Every request is signed with SigV4; error answers become
// DelayQueueApiError / JobConflictError. Every job write carries an Idempotency-Key, so that its retries are
// recognised by the API itself: none needs a read.
import { regionOf, sigV4Signer, signingServiceOf } from './signer'
import { DelayQueueApiError } from './errors'
import { scheduleBatch } from './batch'
import { cancelByTag, deleteSchedulesByTag } from './tag-calls'
import { pageQuery, type PageOptions } from './page-query'
import { withId } from './own-job'
import { idempotencyHeader, newIdempotencyKey } from './idempotency-key'
import { ReplayWindow } from './replays'
import { ApiFlowControl } from './flow'
import { call, DEFAULT_RETRY, type Transport } from './transport'
// The shapes the API takes and answers, named once, in types.ts (which re-exports the shared ones as they are).
import type * as Api from './types'

const NO_URL =
  'DELAY_QUEUE_API_URL is not set (the stack exports it as <service>-<stage>-ApiFunctionUrl, or -HttpApiUrl with apiEndpoint=httpApi)'

export class DelayQueueApiClient {
  private readonly transport: Transport
  /** What this client's earlier write answers said of the API's replays (src/api-client/replays.ts). */
  private readonly replays = new ReplayWindow()
  readonly flow: ApiFlowControl // pause, resume and rates of queues and flow keys (docs/flow-control.md)

  constructor(options: Api.ApiClientOptions) {
    this.transport = transportOf(options)
    this.flow = new ApiFlowControl(this.transport)
  }

  /** From the environment: DELAY_QUEUE_API_URL (and AWS_REGION when the URL does not name a region). */
  static fromEnv(
    env: NodeJS.ProcessEnv = process.env,
    options: Omit<Api.ApiClientOptions, 'url'> = {},
  ): DelayQueueApiClient {
    const url = env.DELAY_QUEUE_API_URL
    if (!url) throw new Error(NO_URL)
    return new DelayQueueApiClient({ region: options.region ?? regionOf(new URL(url), env), ...options, url })
  }

  /**
   * POST /jobs. A job without an id gets one here, and every call one Idempotency-Key (or yours, `idempotencyKey`,
   * which needs an `id`), both before the first attempt and the same on each: an attempt after one the API applied (a
   * 503 after the write, a lost answer) is answered by the API as that one was, from the stored job or, once it was
   * handed to SQS, from its dispatch receipt. No look-up: a caller allowed only to create jobs retries as safely. A
   * taken id throws JobConflictError carrying the job that holds it (without its payload).
   */
  async schedule(input: Api.JobInput, options: Api.WriteOptions = {}): Promise<Api.ScheduledJob> {
    if (options.idempotencyKey !== undefined && input.id === undefined) throw idRequired()
    const job = withId(input)
    const headers = idempotencyHeader(options.idempotencyKey ?? newIdempotencyKey())
    const opts = { retryUnanswered: true, headers, onAnswer: this.replays.seen }
    const answer = await call(this.transport, 'POST', '/jobs', job, opts)
    return answer.status === 200 ? { ...answer.body, replaced: true } : answer.body // 200: onConflict replaced
  }

  /**
   * POST /jobs/batch: up to 100 jobs, each scheduled or refused on its own; results in input order. Jobs get their
   * ids here and the call one Idempotency-Key, as for schedule(); those refused for a passing reason (Redis
   * unavailable, a write not confirmed by a replica) are sent again, and one an earlier attempt stored is answered
   * scheduled by the API.
   */
  scheduleMany(jobs: readonly Api.JobInput[]): Promise<Api.BatchResult[]> {
    return scheduleBatch(this.transport, jobs.map(withId), this.replays.seen)
  }

  /**
   * PUT /jobs/{id}: create or replace (new time, payload, queue). The call gets one Idempotency-Key (or yours,
   * `idempotencyKey`), sent on each attempt: the API answers an attempt after one it applied as that one, while the job
   * is stored and, once it was handed to SQS, while the API keeps its receipt. A 503 or a 429 is sent again on the key
   * alone: no look-up, since the id of a PUT is often written by several callers, and a job found under it may be
   * another writer's (taking it would lose this call's write). A PUT whose answer was lost is sent again only once an
   * answer has shown that the API keeps receipts long enough for this client's retries; until then (receipts off, an
   * API from before keys) it is not (applied and dispatched meanwhile, it would create the job a second time).
   */
  async reschedule(
    id: string,
    input: Omit<Api.JobInput, 'id'>,
    options: Api.WriteOptions = {},
  ): Promise<Api.ScheduledJob & { created: boolean }> {
    const headers = idempotencyHeader(options.idempotencyKey ?? newIdempotencyKey())
    const retryUnanswered = () => this.replays.coversRetries(this.transport.retry, this.transport.timeoutMs)
    const opts = { retryUnanswered, headers, onAnswer: this.replays.seen }
    const answer = await call(this.transport, 'PUT', jobPath(id), input, opts)
    return { ...answer.body, created: answer.status === 201 }
  }

  /** DELETE /jobs/{id}. Throws DelayQueueApiError NotFound, or JobConflictError when it is being handed to SQS. */
  async cancel(id: string): Promise<void> {
    await call(this.transport, 'DELETE', jobPath(id))
  }

  /**
   * POST /jobs/{id}/run: the pending job due now, otherwise unchanged. Sent again when unanswered (a second run of a
   * job due now changes nothing). Throws NotFound, or JobConflictError while it is being sent or when it is dead.
   */
  async runNow(id: string): Promise<Api.RunNowAnswer> {
    return (await call(this.transport, 'POST', `${jobPath(id)}/run`, undefined, { retryUnanswered: true })).body
  }

  /**
   * POST /jobs/run-due: the pending jobs due before `before` (of `queue`, or all), or with `tag` (due before `before`,
   * or all), due now, a bounded share per call: call again with the answer's cursor until it is null. Sent again when
   * unanswered (what was moved stays moved; with a tag, `inFlight` may count a job a second time).
   */
  async runDue(input: Api.RunDueInput): Promise<Api.RunDueResult> {
    return (await call(this.transport, 'POST', '/jobs/run-due', input, { retryUnanswered: true })).body
  }

  /** GET /jobs/{id}: the stored job, a dispatched one's receipt (status "dispatched"), or null (unknown or expired). */
  async get(id: string): Promise<Api.JobView | null> {
    const answer = await call(this.transport, 'GET', jobPath(id), undefined, { allow: [404], retryUnanswered: true })
    return answer.status === 404 ? null : answer.body
  }

  /** GET /jobs: a page of pending jobs in due-time order (one queue or all), from `cursor` (the last page's). */
  async listPending(options: PageOptions & { queue?: string } = {}): Promise<Api.PendingPage> {
    return (await call(this.transport, 'GET', `/jobs${pageQuery(options)}`)).body
  }

  /** GET /jobs?tag=: a page of the jobs with a tag, in id order, with their status and tags. */
  async listByTag(tag: string, options: PageOptions = {}): Promise<Api.TagPage> {
    return (await call(this.transport, 'GET', `/jobs${pageQuery({ ...options, tag })}`)).body
  }

  /** DELETE /jobs?tag=, again until done: every job with the tag cancelled (or counted in flight). */
  cancelByTag(tag: string): Promise<Api.TagCancelResult> {
    return cancelByTag(this.transport, tag)
  }

  /** GET /stats: counts per target queue. */
  async stats(): Promise<Api.QueueStats> {
    return (await call(this.transport, 'GET', '/stats')).body
  }

  /** PUT /schedules/{id}: create or replace a recurring schedule (cron or everyMs). */
  async putSchedule(id: string, input: Api.ScheduleInput): Promise<Api.ScheduleView & { created: boolean }> {
    const answer = await call(this.transport, 'PUT', schedulePath(id), input)
    return { ...answer.body, created: answer.status === 201 }
  }

  /** GET /schedules/{id}: the schedule, or null. */
  async getSchedule(id: string): Promise<Api.ScheduleView | null> {
    const answer = await call(this.transport, 'GET', schedulePath(id), undefined, {
      allow: [404],
      retryUnanswered: true,
    })
    return answer.status === 404 ? null : answer.body
  }

  /** GET /schedules: `limit` (1-100, default 50) at a time, by id; pass the returned cursor back for the next page. */
  async listSchedules(options: PageOptions & { tag?: string } = {}): Promise<Api.ScheduleListPage> {
    return (await call(this.transport, 'GET', `/schedules${pageQuery(options)}`)).body
  }

  /** DELETE /schedules/{id}: no occurrence is created after this returns. Throws DelayQueueApiError NotFound. */
  async deleteSchedule(id: string): Promise<void> {
    await call(this.transport, 'DELETE', schedulePath(id))
  }

  /** DELETE /schedules?tag=, again until done: every schedule with the tag deleted, as deleteSchedule deletes one. */
  readonly deleteSchedulesByTag = (tag: string) => deleteSchedulesByTag(this.transport, tag)

  /** POST /schedules/{id}/pause or /resume. */
  async pauseSchedule(id: string, paused = true): Promise<Api.ScheduleView> {
    return (await call(this.transport, 'POST', `${schedulePath(id)}/${paused ? 'pause' : 'resume'}`)).body
  }
}

/** As DelayQueue refuses it, before anything is sent: the key is kept under the job's id, which the call must name. */
function idRequired(): DelayQueueApiError {
  const error = new DelayQueueApiError(400, 'ValidationError', 'id: is required with an idempotency key', [
    { path: 'id', message: 'is required with an idempotency key' },
  ])
  error.attempts = 0
  return error
}

/** How every call is made: the base URL, signed with SigV4 for the region, the retry policy and timeout. */
function transportOf(options: Api.ApiClientOptions): Transport {
  const baseUrl = new URL(options.url)
  return {
    baseUrl,
    sign: sigV4Signer(
      options.region ?? regionOf(baseUrl),
      options.credentials,
      signingServiceOf(baseUrl, options.signingService),
    ),
    retry: { ...DEFAULT_RETRY, ...options.retry },
    fetch: options.fetch ?? globalThis.fetch,
    timeoutMs: options.timeoutMs ?? 10_000,
  }
}

const jobPath = (id: string) => `/jobs/${encodeURIComponent(id)}`
const schedulePath = (id: string) => `/schedules/${encodeURIComponent(id)}`
