// DelayQueueApiClient: the deployed HTTP API from another service, with the same methods as DelayQueue (which talks
// to Redis directly). Every request is signed with SigV4; error answers become DelayQueueApiError / JobConflictError.
// Recurring schedules (/schedules) get their methods here, next to the job ones, once the API serves them.
import { sigV4Signer, regionOf } from './signer'
import { call, DEFAULT_RETRY, type Transport } from './transport'
import type { ApiClientOptions, BatchResult, JobInput, JobView, QueueStats, ScheduledJob } from './types'

export class DelayQueueApiClient {
  private readonly transport: Transport

  constructor(options: ApiClientOptions) {
    const baseUrl = new URL(options.url)
    this.transport = {
      baseUrl,
      sign: sigV4Signer(options.region ?? regionOf(baseUrl), options.credentials),
      retry: { ...DEFAULT_RETRY, ...options.retry },
      fetch: options.fetch ?? globalThis.fetch,
      timeoutMs: options.timeoutMs ?? 10_000,
    }
  }

  /** From the environment: DELAY_QUEUE_API_URL (and AWS_REGION when the URL does not name a region). */
  static fromEnv(env: NodeJS.ProcessEnv = process.env, options: Omit<ApiClientOptions, 'url'> = {}): DelayQueueApiClient {
    const url = env.DELAY_QUEUE_API_URL
    if (!url) throw new Error('DELAY_QUEUE_API_URL is not set (the stack exports it as <service>-<stage>-HttpApiUrl)')
    return new DelayQueueApiClient({ region: options.region ?? regionOf(new URL(url), env), ...options, url })
  }

  /** POST /jobs. A taken id throws JobConflictError carrying the job that holds it. */
  async schedule(input: JobInput): Promise<ScheduledJob> {
    return (await call(this.transport, 'POST', '/jobs', input)).body
  }

  /** POST /jobs/batch: up to 100 jobs, each scheduled or refused on its own; results in input order. */
  async scheduleMany(jobs: readonly JobInput[]): Promise<BatchResult[]> {
    return (await call(this.transport, 'POST', '/jobs/batch', { jobs })).body.results
  }

  /** PUT /jobs/{id}: create or replace (new time, payload, queue). */
  async reschedule(id: string, input: Omit<JobInput, 'id'>): Promise<ScheduledJob & { created: boolean }> {
    const answer = await call(this.transport, 'PUT', jobPath(id), input)
    return { ...answer.body, created: answer.status === 201 }
  }

  /** DELETE /jobs/{id}. Throws DelayQueueApiError NotFound, or JobConflictError when it is being handed to SQS. */
  async cancel(id: string): Promise<void> {
    await call(this.transport, 'DELETE', jobPath(id))
  }

  /** GET /jobs/{id}: the pending job, or null (never existed, cancelled, or already in SQS). */
  async get(id: string): Promise<JobView | null> {
    const answer = await call(this.transport, 'GET', jobPath(id), undefined, [404])
    return answer.status === 404 ? null : answer.body
  }

  /** GET /stats: counts per target queue. */
  async stats(): Promise<QueueStats> {
    return (await call(this.transport, 'GET', '/stats')).body
  }
}

const jobPath = (id: string) => `/jobs/${encodeURIComponent(id)}`
