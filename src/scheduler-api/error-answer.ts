// Any failure as the restJson1 error the SDK turns into its exception class: the type in x-amzn-ErrorType, the
// message in the body's "Message", AWS's status. Our engine's errors become the Scheduler exception that fits; anything
// unexpected is an InternalServerException that leaks nothing (the SDK retries those).
import {
  DelayQueueError,
  JobDispatchingError,
  JobExistsError,
  PayloadTooLargeError,
  StoreFullError,
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
  if (e instanceof JobExistsError || e instanceof JobDispatchingError) return new SchedulerConflictError(e.message)
  if (e instanceof StoreFullError)
    return new SchedulerQuotaError("The queue's Redis is full: no schedule can be added now.")
  if (e instanceof DelayQueueError && e.code === 'TooManyRequests') return new SchedulerThrottlingError(e.message)
  return new SchedulerInternalError('The request could not be carried out: try again.')
}

export function errorAnswer(error: SchedulerApiError): HttpAnswer {
  return {
    statusCode: error.status,
    headers: { 'content-type': 'application/json', 'x-amzn-errortype': error.type },
    body: JSON.stringify({ Message: error.message }),
  }
}
