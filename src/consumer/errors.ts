// Errors the consumer toolkit raises. (Kept here rather than in src/errors.ts because business Lambdas bundle only
// src/consumer/; they extend the queue's common base so callers can treat them alike.)
import { DelayQueueError } from '../errors'

/** The record is not a job message (bad JSON, a missing or mistyped field, a payload the consumer rejects).
 * It will never parse, however often it is delivered: it is reported failed and lands in the DLQ. */
export class MalformedMessageError extends DelayQueueError {
  readonly code = 'MalformedMessage'
  constructor(readonly messageId: string, readonly reason: string) {
    super(`message ${messageId} is not a job message: ${reason}`)
  }
}
