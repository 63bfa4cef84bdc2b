// Errors only the HTTP layer raises. Store and validation errors live in src/errors.ts.
import { DelayQueueError } from '../errors'

export class UnsupportedMediaTypeError extends DelayQueueError {
  readonly code = 'UnsupportedMediaType'
  constructor(readonly contentType: string | undefined) {
    super(
      `the body must be JSON (content-type: application/json), got ${contentType ? `"${contentType}"` : 'no content-type'}`,
    )
  }
}

/** A request no route answers (only reachable behind a catch-all route: API Gateway answers unknown routes itself). */
export class RouteNotFoundError extends DelayQueueError {
  readonly code = 'NotFound'
  constructor(method: string, path: string) {
    super(`no route for ${method} ${path}`)
  }
}

/** A whole batch request bigger than the API takes in one call (single jobs are limited by PayloadTooLargeError). */
export class BatchTooLargeError extends DelayQueueError {
  readonly code = 'PayloadTooLarge'
  constructor(
    readonly bytes: number,
    readonly limit: number,
  ) {
    super(`the batch body is ${bytes} bytes; the limit is ${limit}: send fewer or smaller jobs per call`)
  }
}
