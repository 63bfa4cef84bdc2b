// What the HTTP API takes and answers (docs/api.md), as the API client types them.
// Re-exported as they are: the API takes and answers the same shapes as DelayQueue.
export type {
  PromoteDueResult,
  QueueStats,
  RunDueInput,
  RunDueResult,
  RunNowAnswer,
  ScheduleTagDeleteResult,
  TagCancelResult,
  WriteOptions,
} from '../direct/delay-queue'
// The contract (src/contract/): what the API takes and answers.
export type { ExistingJob } from '../contract/errors'
export type { JobInput, JobView, ScheduledJob } from '../contract/job'
export type { PendingJob, PendingPage } from '../contract/page'
export type { ScheduleInput, ScheduleListPage, ScheduleView } from '../contract/schedule'
export type { TagPage } from '../contract/tag'

import type { ExistingJob } from '../contract/errors'
import type { ApiErrorCode, ApiErrorDetail } from './errors'
import type { Credentials, SigningService } from './signer'
import type { RetryPolicy } from './transport'

/**
 * One answer of POST /jobs/batch, in input order. A refusal carries the job's id (the client gives every job one
 * before sending it), and for a taken id (`Conflict`) the job that holds it, without its payload.
 */
export type BatchResult =
  | { id: string; status: 'scheduled' }
  | { id?: string; error: { code: ApiErrorCode; message: string; details?: ApiErrorDetail[] }; job?: ExistingJob }

export interface ApiClientOptions {
  /**
   * The API's base URL: the stack's `<service>-<stage>-ApiFunctionUrl` export (`-HttpApiUrl` with apiEndpoint=httpApi),
   * or the local dev stack's address. A `lambda-url` host is signed for the service `lambda`, any other for
   * `execute-api` (unless `signingService` says otherwise).
   */
  url: string
  /** Signing region. Default: from a `lambda-url` or `execute-api` host name, else AWS_REGION / AWS_DEFAULT_REGION. */
  region?: string
  /**
   * The service the signature is for, when `url` is a custom domain (CloudFront, an API Gateway custom domain) whose
   * name does not tell: `lambda` for a Function URL behind it, `execute-api` for an HTTP API. Set `region` with it.
   * Default: from the host name.
   */
  signingService?: SigningService
  /** Default: the AWS SDK's default credential chain (in Lambda, the function's role). */
  credentials?: Credentials
  retry?: Partial<RetryPolicy>
  /** Per attempt, in ms. Default 10,000. */
  timeoutMs?: number
  /** Default: the global fetch. */
  fetch?: typeof globalThis.fetch
}
