// The public types of the consumer toolkit.
import type { Logger } from '@aws-lambda-powertools/logger'
import type { SQSClient } from '@aws-sdk/client-sqs'
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda'
import type { JobMessage } from '../sqs/envelope'
import type { BackoffPolicy } from './backoff'
import type { IdempotencyOptions } from './idempotency'
import type { PayloadParser } from './payload-parser'

/** A job as the business code sees it: the message body plus how it was delivered. */
export interface Job<Payload = unknown> extends JobMessage<Payload> {
  /** SQS message id (changes if the scanner re-sends the job; the job id does not). */
  messageId: string
  /** 1 on the first delivery: the message's ApproximateReceiveCount. */
  attempt: number
  /** Milliseconds between the job's due time and the moment this invocation received it. */
  latenessMs: number
  /** FIFO queues only. */
  groupId?: string
}

export interface JobContext {
  /** Carries jobId, queue, attempt, latenessMs and messageId on every line. */
  logger: Logger
  lambdaContext: Context
  record: SQSRecord
}

export type JobFunction<Payload, Result = unknown> = (job: Job<Payload>, ctx: JobContext) => Promise<Result> | Result

export interface JobHandlerOptions<Payload> {
  /** Validates and narrows the payload: a Standard Schema (a zod, valibot or arktype schema itself), a type guard
   * (`payload is T`), or a sync function that returns the payload or throws. A rejection makes the record malformed. */
  parsePayload?: PayloadParser<Payload>
  /** Records of a standard-queue batch running at once. Default 10. FIFO batches always run in order. */
  concurrency?: number
  /** Delay before the next attempt of a failed record; `false` leaves it to the queue's visibility timeout. */
  backoff?: Partial<BackoffPolicy> | false
  /** Visibility given to malformed records, whole seconds 0-43,200 (with or without backoff): they never parse, so by
   * default (0) they reach the DLQ quickly. */
  malformedRetrySeconds?: number
  /** The queue's redrive maxReceiveCount. Default: read from the queue (GetQueueAttributes), kept 10 minutes. */
  maxReceiveCount?: number
  /** How long before the Lambda timeout the records are settled (default 1,000 ms, at most half the budget): then
   * records not started fail without running, records still running are reported failed, and the retry delays are
   * set; the answer goes back before the timeout. */
  deadlineMarginMs?: number
  /** Queue URL for ChangeMessageVisibility; default derived from each record's eventSourceARN. */
  queueUrl?: string
  /** Local runs only (fauxqs). Default `SQS_ENDPOINT` from the environment. */
  sqsEndpoint?: string
  /** An SQS client to use instead of the module-scope one (tests, custom retry settings). */
  sqs?: SQSClient
  /** Skip duplicates of a job that already completed (Redis): see docs/consumer.md for when a job can run twice. */
  idempotency?: IdempotencyOptions
  /** Default: a Powertools Logger with service `POWERTOOLS_SERVICE_NAME` or "delay-queue-consumer". */
  logger?: Logger
  /** Add the payload to the "job failed" log line. Off by default: payloads can hold personal data. */
  logPayload?: boolean
}

/** What a middleware sees: middy's request for one batch. */
export interface JobBatchRequest {
  event: SQSEvent
  context: Context
  response: SQSBatchResponse | null | undefined
  error: Error | null | undefined
  internal: Record<string, unknown>
}

/** A middy middleware for the batch handler. */
export interface JobBatchMiddleware {
  before?: (request: JobBatchRequest) => unknown
  after?: (request: JobBatchRequest) => unknown
  onError?: (request: JobBatchRequest) => unknown
  name?: string
}

/** The Lambda handler that jobHandler returns: a middy handler, typed here so that the package's declarations do not
 * depend on middy's (ESM-only) ones. Add middlewares with `.use()`. */
export interface JobBatchHandler {
  (event: SQSEvent, context: Context): Promise<SQSBatchResponse>
  use(middleware: JobBatchMiddleware | JobBatchMiddleware[]): JobBatchHandler
}
