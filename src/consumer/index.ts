// The consumer toolkit: what a business Lambda imports (`serverless-delay-queue/consumer`). Nothing here loads a
// Redis client: with idempotency on, the caller passes its own.
export { jobHandler } from './job-handler'
export type {
  Job,
  JobBatchHandler,
  JobBatchMiddleware,
  JobBatchRequest,
  JobContext,
  JobFunction,
  JobHandlerOptions,
} from './types'
export type { BackoffPolicy } from './backoff'
export { DeadLetterNowError, DeadlineError, MalformedMessageError, RedisTimeoutError, RetryLaterError } from './errors'
export type { PayloadIssue } from './issues'
export type {
  PayloadGuard,
  PayloadParseFunction,
  PayloadParser,
  StandardSchemaProps,
  StandardSchemaResult,
  StandardSchemaV1,
} from './payload-parser'
export type { IdempotencyOptions, RedisCommands } from './idempotency'
export { JOB_ID_ATTRIBUTE, type JobMessage } from '../sqs/envelope'
