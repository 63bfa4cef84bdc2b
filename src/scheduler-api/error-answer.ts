// Any failure as the restJson1 error the SDK turns into its exception class: the type in x-amzn-ErrorType, the
// message in the body's "Message", AWS's status. Our engine's errors become the Scheduler exception that fits; anything
// unexpected is an InternalServerException that leaks nothing (the SDK retries those).
import {
  DelayQueueError,
  JobDispatchingError,
  JobExistsError,
  JobMaybeDispatchedError,
  PayloadTooLargeError,
  StoreFullError,
  StoreUnavailableError,
  ValidationError,
} from '../errors'
import {
  SchedulerApiError,
  SchedulerConflictError,
  SchedulerInternalError,
  SchedulerQuotaError,
  SchedulerThrottlingError,
  SchedulerValidationError,
} from './errors'

export interface HttpAnswer {
  statusCode: number
  headers: Record<string, string>
  body: string
}

export function asSchedulerError(e: unknown): SchedulerApiError {
  if (e instanceof SchedulerApiError) return e
  if (e instanceof ValidationError || e instanceof PayloadTooLargeError) return new SchedulerValidationError(e.message)
  // A job being sent, or whose send may have reached SQS and is being retried: a change can follow once that settles.
  if (e instanceof JobExistsError || e instanceof JobDispatchingError || e instanceof JobMaybeDispatchedError) {
    return new SchedulerConflictError(e.message)
  }
  if (e instanceof StoreFullError || outOfMemory(e)) {
    return new SchedulerQuotaError("The queue's Redis is full: no schedule can be added now.")
  }
  if (e instanceof DelayQueueError && e.code === 'TooManyRequests') return new SchedulerThrottlingError(e.message)
  if (overloaded(e)) return new SchedulerThrottlingError("The queue's Redis is busy: slow down and try again.")
  return new SchedulerInternalError('The request could not be carried out: try again.')
}

/**
 * Redis refused a write of the definitions (definition-store.ts) for want of memory: OOM, or, within MULTI, the
 * EXECABORT that follows it (ioredis keeps the queued command's error in `previousErrors`).
 */
function outOfMemory(e: unknown): boolean {
  if (!(e instanceof Error)) return false
  const previous = (e as { previousErrors?: Error[] }).previousErrors ?? []
  return [e, ...previous].some((x) => x.message?.startsWith('OOM'))
}

/**
 * Redis answering that it has no capacity for the request right now: a script still running (BUSY) or no room for
 * another client. A rate signal, which the SDK retries with its throttling backoff; engine writes carry it as the
 * cause of a StoreUnavailableError (src/store/redis/redis-errors.ts), definition writes as the reply itself. Other
 * outages (Redis away, a failover) stay InternalServerException.
 */
const OVERLOADED = /^(BUSY|ERR max number of clients)\b/

function overloaded(e: unknown): boolean {
  const reply = e instanceof StoreUnavailableError ? e.cause : e
  return reply instanceof Error && OVERLOADED.test(reply.message)
}

export function errorAnswer(error: SchedulerApiError): HttpAnswer {
  return {
    statusCode: error.status,
    headers: { 'content-type': 'application/json', 'x-amzn-errortype': error.type },
    body: JSON.stringify({ Message: error.message }),
  }
}
