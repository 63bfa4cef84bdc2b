// The one mapping from errors to HTTP answers: `{ "error": { "code", "message", "details"? } }`.
// Anything that is not one of our own errors is a 500 whose body says nothing about its cause (it is logged).
import {
  DeepPagesLimitedError,
  DelayQueueError,
  IdempotencyKeyReusedError,
  JobExistsError,
  PayloadTooLargeError,
  PendingPageBusyError,
  ValidationError,
  type ErrorDetail,
} from '../errors'
import type { Log } from '../logger'
import { json, type ApiResponse } from './response'

const STATUS: Record<string, number> = {
  ValidationError: 400,
  NotFound: 404,
  Conflict: 409,
  // A cancel or replace of a job whose failed send SQS may have accepted: a conflict, named apart from "being sent".
  JobMaybeDispatched: 409,
  PayloadTooLarge: 413,
  // An Idempotency-Key sent again with another request: well-formed, but not the write the key stands for.
  IdempotencyKeyReused: 422,
  UnsupportedMediaType: 415,
  // Too many deep pages of GET /jobs from one caller (src/store/deep-page-rate.ts).
  TooManyRequests: 429,
  ServiceUnavailable: 503,
  // The write may or may not survive a failover: retryable, like an outage, but its own code
  // (src/store/redis/replication.ts).
  ReplicationUnconfirmed: 503,
  // 507 Insufficient Storage (RFC 4918): the server cannot store what it was asked to. Not 503: nothing is down,
  // and an operator paged for "unavailable" would look for an outage instead of adding memory or draining jobs.
  StoreFull: 507,
}

const RETRY_LOG: Record<string, string> = {
  ReplicationUnconfirmed: 'write not confirmed by Redis replicas',
  StoreFull: 'job store full (Redis maxmemory)',
}

export interface ErrorBody {
  code: string
  message: string
  details?: ErrorDetail[]
}

/** Our errors as the API shows them (also used for per-job answers of POST /jobs/batch), or null when internal. */
export function errorBody(error: unknown): ErrorBody | null {
  if (!(error instanceof DelayQueueError) || !(error.code in STATUS)) return null
  const body: ErrorBody = { code: error.code, message: error.message }
  if (error instanceof ValidationError || error instanceof IdempotencyKeyReusedError) body.details = error.details
  if (error instanceof PayloadTooLargeError) body.details = [{ path: 'payload', message: error.message }]
  return body
}

export function errorResponse(error: unknown, log: Log, requestId?: string): ApiResponse {
  const body = errorBody(error)
  if (!body) {
    log.error('request failed', { requestId, error: describe(error) })
    const message = `internal error${requestId ? ` (request ${requestId})` : ''}; it has been logged`
    return json(500, { error: { code: 'InternalError', message } })
  }
  const status = STATUS[body.code]!
  // A deep page of GET /jobs with no room for its walk's state: nothing is down, and room comes back when walks go
  // idle (a minute), not in a second: a quick retry would only spend another of the caller's deep pages.
  if (error instanceof PendingPageBusyError) {
    log.warn('deep page of GET /jobs refused: no room for its walk state', { requestId })
    return json(status, { error: body }, { 'retry-after': '60' })
  }
  if (status === 503 || status === 507) {
    log.warn(RETRY_LOG[body.code] ?? 'job store unavailable', {
      requestId,
      error: describe((error as Error).cause ?? error),
    })
    return json(status, { error: body }, { 'retry-after': status === 507 ? '30' : '1' })
  }
  if (error instanceof DeepPagesLimitedError) {
    return json(status, { error: body }, { 'retry-after': String(error.retryAfterSeconds) })
  }
  // An insert of an existing id answers with the job that holds it (never its payload, nor a comparison with it).
  if (error instanceof JobExistsError) return json(status, { error: body, job: error.existing })
  return json(status, { error: body })
}

function describe(error: unknown): Record<string, unknown> {
  return error instanceof Error
    ? { name: error.name, message: error.message, stack: error.stack }
    : { value: String(error) }
}
