// What an error tells its caller, as DelayQueue's errors carry it and the HTTP API answers it (docs/api.md):
// the codes, a field's refusal, and the job that holds a taken id.

/** The API's codes (docs/api.md), plus those of answers API Gateway gives before the API runs. */
export type ApiErrorCode =
  | 'ValidationError'
  | 'NotFound'
  | 'Conflict'
  | 'JobMaybeDispatched'
  | 'PayloadTooLarge'
  | 'IdempotencyKeyReused'
  | 'UnsupportedMediaType'
  | 'Unauthorized'
  | 'Forbidden'
  | 'TooManyRequests'
  | 'ServiceUnavailable'
  | 'ReplicationUnconfirmed'
  | 'StoreFull'
  | 'InternalError'
  | 'HttpError'

/** One refused field: where it is (`payload.to`, `jobs[3].runAt`) and the rule it breaks. */
export interface ErrorDetail {
  path: string
  message: string
}

/**
 * The job that holds a taken id, as a refused create shows it: never the payload, nor whether it equals the one sent
 * (a caller allowed only to create jobs must not read other jobs through a 409, nor test guesses of their payloads
 * against it). A create sent again with its own Idempotency-Key is answered as a replay instead, never with this.
 */
export interface ExistingJob {
  id: string
  queue: string
  /** As GET shows it: a job waiting for a dispatch retry is "scheduled". */
  status: 'scheduled' | 'dispatching' | 'dead'
  /** When it is due (its next dispatch attempt while it waits for a retry; when it died, for a dead job). */
  runAt: string
  createdAt: string
  groupId?: string
}
