// The consumer toolkit: what a business Lambda imports.
export { jobHandler } from './job-handler'
export type { Job, JobContext, JobFunction, JobHandlerOptions } from './types'
export { backoffSeconds, DEFAULT_BACKOFF, type BackoffPolicy } from './backoff'
export { parseJobMessage, type ParseResult } from './parse-message'
export { MalformedMessageError } from './errors'
export { ioredisCacheClient, type IdempotencyOptions, type RedisCommands } from './idempotency'
export { JOB_ID_ATTRIBUTE, type JobMessage } from '../sqs/envelope'
