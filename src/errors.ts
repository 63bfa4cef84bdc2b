// The queue's errors (store, validation, configuration); the Lua scripts' error codes map to them in
// src/store/script-errors.ts. Errors only
// the HTTP layer or the consumer toolkit raise live beside them (src/api/errors.ts, src/consumer/errors.ts) and extend
// the same DelayQueueError base.
import type { ErrorDetail, ExistingJob } from './contract/errors'
import { NamedError } from './shared/named-error'

export type { ErrorDetail, ExistingJob }

export abstract class DelayQueueError extends NamedError {
  abstract readonly code: string
}

export class ValidationError extends DelayQueueError {
  readonly code = 'ValidationError'
  constructor(readonly details: ErrorDetail[]) {
    super(details.map((d) => `${d.path || '(body)'}: ${d.message}`).join('; '))
  }
}

export class PayloadTooLargeError extends DelayQueueError {
  readonly code = 'PayloadTooLarge'
  constructor(
    readonly bytes: number,
    readonly limit: number,
  ) {
    super(`the SQS message would be ${bytes} bytes; the limit is ${limit}`)
  }
}

export class JobNotFoundError extends DelayQueueError {
  readonly code = 'NotFound'
  constructor(readonly jobId: string) {
    super(`no pending job with id "${jobId}"`)
  }
}

/** An operator tool named a target queue that is not in QUEUES (the dashboard's DLQ routes). */
export class QueueNotFoundError extends DelayQueueError {
  readonly code = 'NotFound'
  constructor(
    readonly queue: string,
    known: string[],
  ) {
    super(`no target queue ${JSON.stringify(queue)} in QUEUES (${known.map((q) => JSON.stringify(q)).join(', ')})`)
  }
}

export class JobExistsError extends DelayQueueError {
  readonly code = 'Conflict'
  constructor(
    readonly jobId: string,
    readonly existing: ExistingJob,
  ) {
    super(`a job with id "${jobId}" exists already`)
  }
}

export class JobDispatchingError extends DelayQueueError {
  readonly code = 'Conflict'
  constructor(readonly jobId: string) {
    super(`job "${jobId}" is being handed to SQS right now; it can no longer be changed or cancelled`)
  }
}

/** Run now of a job flow control holds (a pause, a rate): its resume or its rate lets it go. */
export class JobHeldError extends DelayQueueError {
  readonly code = 'Conflict'
  constructor(
    readonly jobId: string,
    why?: string,
  ) {
    super(`job "${jobId}" is held by flow control (${why ?? 'a pause or a rate'}): it leaves when that lets it go`)
  }
}

/** Run now of a job in the dead set: SQS refused it on every attempt; the dead set's retry is its action. */
export class JobDeadError extends DelayQueueError {
  readonly code = 'Conflict'
  constructor(readonly jobId: string) {
    super(`job "${jobId}" is in the dead set (SQS refused it on every attempt): retry it from there instead`)
  }
}

/**
 * The job waits for a dispatch retry after a send that SQS may have accepted (a timeout, a reset connection): it may
 * run, so a cancel or replace cannot promise otherwise until the retry settles (sent, then gone: 404 / a new job).
 */
export class JobMaybeDispatchedError extends DelayQueueError {
  readonly code = 'JobMaybeDispatched'
  constructor(readonly jobId: string) {
    super(
      `job "${jobId}" may be in SQS already: a send of it failed in a way SQS may still have accepted, and its retry ` +
        'has not settled; it can no longer be changed or cancelled',
    )
  }
}

/**
 * A write carried the Idempotency-Key (write token) of an earlier write of the same job id, with another request
 * (queue, group, payload, time or method): not a retry of that write. Nothing changes; a 422 naming the key.
 */
export class IdempotencyKeyReusedError extends DelayQueueError {
  readonly code = 'IdempotencyKeyReused'
  readonly details: ErrorDetail[] = [
    {
      path: 'Idempotency-Key',
      message: 'was sent before with another request for this job: make a new key for each write',
    },
  ]
  constructor(readonly jobId: string) {
    super(
      `the Idempotency-Key of this write was applied to job "${jobId}" with another request (queue, group, payload, ` +
        'time or method); nothing was changed: a key stands for one write, make a new one for a new write',
    )
  }
}

export class ScheduleNotFoundError extends DelayQueueError {
  readonly code = 'NotFound'
  constructor(readonly scheduleId: string) {
    super(`no schedule with id "${scheduleId}"`)
  }
}

/** A pause or resume lost a race with another write of the same schedule. */
export class ScheduleChangedError extends DelayQueueError {
  readonly code = 'Conflict'
  constructor(readonly scheduleId: string) {
    super(`schedule "${scheduleId}" was changed meanwhile; read it again`)
  }
}

/** Cancelling a schedule's pending occurrence would end its series: change the schedule instead. */
export class OccurrenceOfScheduleError extends DelayQueueError {
  readonly code = 'Conflict'
  constructor(
    readonly jobId: string,
    readonly scheduleId: string,
  ) {
    super(
      `job "${jobId}" is the next occurrence of schedule "${scheduleId}": pause, replace or delete the schedule instead`,
    )
  }
}

export class ConfigError extends DelayQueueError {
  readonly code = 'ConfigError'
  constructor(
    readonly setting: string,
    rule: string,
  ) {
    super(`invalid setting ${setting}: ${rule}`)
  }
}

/** Redis cannot be reached (or timed out): the API answers 503, the scanner retries. */
export class StoreUnavailableError extends DelayQueueError {
  readonly code = 'ServiceUnavailable'
  constructor(cause: unknown) {
    super('the job store (Redis) is unavailable')
    this.cause = cause
  }
}

/**
 * A write reached the Redis primary, but fewer replicas than REDIS_WAIT_REPLICAS confirmed it in time: a failover
 * now could lose it. A 503 (retry: the same id makes an enqueue retry answer 409 with the job if it did survive).
 */
export class ReplicationUnconfirmedError extends DelayQueueError {
  readonly code = 'ReplicationUnconfirmed'
  constructor(
    readonly confirmed: number,
    readonly required: number,
    timeoutMs: number,
    cause?: unknown,
  ) {
    super(
      `the write reached the Redis primary, but ${confirmed} of ${required} replicas confirmed it within ${timeoutMs} ms: ` +
        'it may or may not survive a failover; retry the request',
    )
    this.cause = cause
  }
}

/**
 * REDIS_WAIT_REPLICAS=auto: the shard's primary has had a replica but has none online now (a replica restarting, a
 * network blip, a failover under way). A write acknowledged now could be lost by the next failover, so none is made:
 * a 503 like an outage, with nothing stored; a retry succeeds once a replica is back
 * (src/store/redis/replica-watch.ts).
 */
export class NoReplicaError extends DelayQueueError {
  readonly code = 'ServiceUnavailable'
  constructor() {
    super(
      'the Redis primary has no replica online (it has had one): writes are refused until one is back, so that a ' +
        'failover cannot lose them; nothing was stored, retry the request',
    )
  }
}

/**
 * Redis refuses new data (maxmemory reached, noeviction): no outage, a full store. Jobs already accepted keep being
 * dispatched and can be cancelled, which frees memory; new ones wait until then, or until the operator adds memory.
 */
export class StoreFullError extends DelayQueueError {
  readonly code = 'StoreFull'
  constructor(cause: unknown) {
    super(
      'the job store (Redis) is full (maxmemory reached): new jobs are refused until due jobs drain or memory is ' +
        'added; pending jobs are still dispatched and can be cancelled',
    )
    this.cause = cause
  }
}

/**
 * GET /jobs: the caller has had its deep pages for now (src/store/deep-page-rate.ts). A 429 with Retry-After; nothing
 * was read. Pages of a walk under way are not counted: only those that start one or read deep without one.
 */
export class DeepPagesLimitedError extends DelayQueueError {
  readonly code = 'TooManyRequests'
  constructor(readonly retryAfterSeconds: number) {
    super(
      'too many deep pages of GET /jobs from this caller (pages that start a walk deep in the queue): follow the ' +
        `cursors of a walk under way, or retry in ${retryAfterSeconds} s`,
    )
  }
}

/**
 * GET /jobs: a page deep in a queue needs a walk's frontier to stay within DEEP_PAGE_BUCKETS reads, and Redis has no
 * room for one now (the walks' byte budget or 80% of maxmemory, src/store/pending-walk.ts). A 503: retry shortly.
 */
export class PendingPageBusyError extends DelayQueueError {
  readonly code = 'ServiceUnavailable'
  constructor() {
    super(
      'this page of GET /jobs is deep in the queue and Redis has no room for the walk state it needs now (walks ' +
        'started by other pages hold it); nothing was changed, retry in a minute',
    )
  }
}
