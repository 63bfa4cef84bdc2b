// The errors the Scheduler-compatible API answers with: the exception shapes @aws-sdk/client-scheduler knows, with the
// HTTP status AWS gives each, so that `instanceof ValidationException` (etc.) holds in the caller's code.

export abstract class SchedulerApiError extends Error {
  /** The exception's name as the SDK registers it (the x-amzn-ErrorType header). */
  abstract readonly type: string
  abstract readonly status: number
  constructor(message: string) {
    super(message)
    this.name = new.target.name
  }
}

export class SchedulerValidationError extends SchedulerApiError {
  readonly type = 'ValidationException'
  readonly status = 400
}

export class SchedulerNotFoundError extends SchedulerApiError {
  readonly type = 'ResourceNotFoundException'
  readonly status = 404
}

export class SchedulerConflictError extends SchedulerApiError {
  readonly type = 'ConflictException'
  readonly status = 409
}

export class SchedulerQuotaError extends SchedulerApiError {
  readonly type = 'ServiceQuotaExceededException'
  readonly status = 402
}

export class SchedulerThrottlingError extends SchedulerApiError {
  readonly type = 'ThrottlingException'
  readonly status = 429
}

/** An unsigned request, or one signed for another service (AWS answers these before any operation runs). */
export class SchedulerSignatureError extends SchedulerApiError {
  readonly type = 'UnrecognizedClientException'
  readonly status = 403
}

export class SchedulerInternalError extends SchedulerApiError {
  readonly type = 'InternalServerException'
  readonly status = 500
}
