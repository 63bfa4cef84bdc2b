// Errors only the consumer toolkit raises. They extend the queue's common base (src/errors.ts), so callers can treat
// every error of the package alike.
import { DelayQueueError } from '../errors'

/** The record is not a job message (bad JSON, a missing or mistyped field, a payload the consumer rejects).
 * It will never parse, however often it is delivered: it is reported failed and lands in the DLQ. */
export class MalformedMessageError extends DelayQueueError {
  readonly code = 'MalformedMessage'
  constructor(
    readonly messageId: string,
    readonly reason: string,
  ) {
    super(`message ${messageId} is not a job message: ${reason}`)
  }
}
