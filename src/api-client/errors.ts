// What a failed call of the HTTP API throws: the API's error body (`{ "error": { code, message, details } }`) as a
// typed error. API Gateway's own refusals (a 403 for a missing execute-api:Invoke grant, a 429 throttle) carry no
// such body: their code comes from the status.
import type { ApiErrorCode, ErrorDetail, ExistingJob } from '../contract/errors'

export type { ApiErrorCode }

/** One refused field (the API's ErrorDetail). */
export type ApiErrorDetail = ErrorDetail

export class DelayQueueApiError extends Error {
  /** How many HTTP attempts the call made before this answer (retries of 503 / 429 included). */
  attempts = 1

  constructor(
    readonly status: number,
    readonly code: ApiErrorCode,
    message: string,
    /** For a ValidationError: each bad field and the rule it breaks. */
    readonly details: ApiErrorDetail[] = [],
  ) {
    super(message)
    this.name = new.target.name
  }
}

/**
 * A 409: the id is taken (`existing` is the job that holds it), the job is being handed to SQS right now, or
 * (`code` JobMaybeDispatched) a send of it may have reached SQS and its retry has not settled.
 */
export class JobConflictError extends DelayQueueApiError {
  constructor(
    message: string,
    readonly existing: ExistingJob | undefined,
    code: 'Conflict' | 'JobMaybeDispatched' = 'Conflict',
  ) {
    super(409, code, message)
  }
}

const CODE_OF_STATUS: Record<number, ApiErrorCode> = {
  400: 'ValidationError',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'NotFound',
  409: 'Conflict',
  413: 'PayloadTooLarge',
  422: 'IdempotencyKeyReused',
  415: 'UnsupportedMediaType',
  429: 'TooManyRequests',
  500: 'InternalError',
  503: 'ServiceUnavailable',
}

/** The error for a non-2xx answer, from its status and (JSON or not) body text. */
export function apiErrorOf(status: number, text: string): DelayQueueApiError {
  // biome-ignore lint/suspicious/noExplicitAny: any JSON at all (or none): every field is checked before use
  let body: any
  try {
    body = JSON.parse(text)
  } catch {
    body = undefined
  }
  const error = body?.error
  const code: ApiErrorCode = typeof error?.code === 'string' ? error.code : (CODE_OF_STATUS[status] ?? 'HttpError')
  const message: string =
    typeof error?.message === 'string'
      ? error.message
      : typeof body?.message === 'string'
        ? body.message
        : `HTTP ${status}`
  if (status === 409) {
    return new JobConflictError(message, body?.job ?? undefined, code === 'JobMaybeDispatched' ? code : 'Conflict')
  }
  const details = Array.isArray(error?.details) ? (error.details as ApiErrorDetail[]) : []
  return new DelayQueueApiError(status, code, message, details)
}
