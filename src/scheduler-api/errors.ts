// The errors the Scheduler-compatible API answers with: the exception shapes @aws-sdk/client-scheduler knows, with the
// HTTP status AWS gives each, so that `instanceof ValidationException` (etc.) holds in the caller's code.
import { NamedError } from '../shared/named-error'

export abstract class SchedulerApiError extends NamedError {
  /** The exception's name as the SDK registers it (the x-amzn-ErrorType header). */
  abstract readonly type: string
  abstract readonly status: number
}

/** The base of one exception: its SDK name and AWS's status, each class a line below. */
function exception(type: string, status: number) {
  abstract class Exception extends SchedulerApiError {
    readonly type = type
    readonly status = status
  }
  return Exception
}

export class SchedulerValidationError extends exception('ValidationException', 400) {}
export class SchedulerNotFoundError extends exception('ResourceNotFoundException', 404) {}
export class SchedulerConflictError extends exception('ConflictException', 409) {}
export class SchedulerQuotaError extends exception('ServiceQuotaExceededException', 402) {}
export class SchedulerThrottlingError extends exception('ThrottlingException', 429) {}
/** An unsigned request, or one signed for another service (AWS answers these before any operation runs). */
export class SchedulerSignatureError extends exception('UnrecognizedClientException', 403) {}
export class SchedulerInternalError extends exception('InternalServerException', 500) {}
