// Errors only the consumer toolkit raises. They extend the queue's common base (src/errors.ts), so callers can treat
// every error of the package alike.
import { DelayQueueError } from '../errors'
import type { PayloadIssue } from './issues'

/** The record is not a job message (bad JSON, a missing or mistyped field, a payload the consumer rejects).
 * It will never parse, however often it is delivered: it is reported failed and lands in the DLQ. */
export class MalformedMessageError extends DelayQueueError {
  readonly code = 'MalformedMessage'
  constructor(
    readonly messageId: string,
    readonly reason: string,
    /** The payload schema's first issues, when a schema rejected the payload. */
    readonly issues?: PayloadIssue[],
  ) {
    super(`message ${messageId} is not a job message: ${reason}`)
  }
}

/** The invocation's deadline came before this record was done: reported failed so the batch answer goes back in
 * time. `started` says whether the business code had begun (it may still finish in the background). */
export class DeadlineError extends DelayQueueError {
  readonly code = 'Deadline'
  constructor(readonly started: boolean) {
    super(
      started
        ? "still running at the invocation's deadline: reported failed (the code may still finish in the background)"
        : "not started: the invocation's deadline was near",
    )
  }
}

/** A Redis call of the idempotency layer got no answer in time (Redis down, unreachable, or stuck). */
export class RedisTimeoutError extends DelayQueueError {
  readonly code = 'RedisTimeout'
  constructor(readonly timeoutMs: number) {
    super(`Redis did not answer within ${timeoutMs} ms`)
  }
}

/** Thrown by the business code: this attempt failed, and the next one must wait at least `afterSeconds` (a
 * `Retry-After` the called service gave). The toolkit hides the record for the longer of that and its backoff. */
export class RetryLaterError extends DelayQueueError {
  readonly code = 'RetryLater'
  constructor(
    message: string,
    readonly afterSeconds: number,
  ) {
    super(message)
  }
}

/** Thrown by the business code: no retry can succeed (a 400 from the called service). The toolkit moves the record to
 * its queue's DLQ now instead of spending the remaining receives; without a DLQ it is an ordinary failure. */
export class DeadLetterNowError extends DelayQueueError {
  readonly code = 'DeadLetterNow'
}
