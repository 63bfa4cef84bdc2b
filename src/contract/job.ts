// A job as callers send it and see it: the input of POST /jobs and DelayQueue.schedule, the answer to a write, the
// view of GET /jobs/{id}, and a queue's counts (docs/api.md). The API side's zod schema (src/direct/validation.ts)
// takes exactly JobInput (test/api/public-types.test.ts holds the two together).

/** What a write does when the id is taken (docs/api.md, "onConflict"). */
export type OnConflict = 'reject' | 'replace' | 'extend' | 'debounce'

/** What callers send: the job input of docs/api.md. */
export interface JobInput {
  queue: string
  payload: unknown
  delayMs?: number
  /** ISO-8601 with a zone, or epoch ms. */
  runAt?: string | number
  id?: string
  groupId?: string
  flowKey?: string
  tags?: string[]
  onConflict?: OnConflict
  maxWaitMs?: number
}

/** A job as stored, without its payload (answers to schedule / reschedule). */
export interface ScheduledJob {
  id: string
  queue: string
  status: 'scheduled'
  runAt: string
  createdAt: string
  groupId?: string
  tags?: string[]
  /** schedule() with onConflict: set when the write went to a job stored under the id (replaced, extended, debounced). */
  replaced?: true
  /** Set when an earlier attempt with the same idempotency key stored it: this answer is that attempt's. */
  replayed?: true
}

/** `dispatched`: SQS accepted it; what its dispatch receipt keeps (DISPATCH_RECEIPT_TTL_MS), no payload. */
export type JobStatus = 'scheduled' | 'dispatching' | 'dead' | 'dispatched'

export interface DispatchError {
  attempts: number
  at: string
  message: string
  /** A send of it failed in a way SQS may still have accepted: it may run already, and cannot be cancelled. */
  maybeSent?: true
}

/** What the HTTP forwarder's calls got, shown with a dispatched job of an HTTP target queue (docs/http-targets.md). */
export interface DeliveryRecord {
  /** delivered: a 2xx; retrying: the call failed and SQS brings the job back; dead-lettered: in the DLQ, not retried. */
  outcome: 'delivered' | 'retrying' | 'dead-lettered'
  /** The last call's HTTP status; absent when no answer came (timeout, refused address, connection error). */
  status?: number
  /** The first bytes of the last answer's body. */
  excerpt?: string
  /** Calls made so far (the SQS receive count of the last one). */
  attempts: number
  /** Why it failed, when it did. */
  reason?: string
  /** When the last call ended (ISO). */
  at: string
}

/**
 * The API's job view (docs/api.md), plus `attempts` / `lastError` once a dispatch to SQS has failed, and the dead
 * state. A dispatched job (its receipt) has no payload, and has dueAt, acceptedAt, messageId, attempts (and createdAt,
 * in receipts written since they keep it).
 */
export interface JobView {
  id: string
  queue: string
  runAt: string
  status: JobStatus
  payload?: unknown
  groupId?: string
  tags?: string[]
  /** Its flow key (docs/flow-control.md). */
  flowKey?: string
  createdAt?: string
  attempts?: number
  lastError?: DispatchError
  /** Dispatched: when it was due (as runAt). */
  dueAt?: string
  /** Dispatched: when SQS accepted it (Redis's clock, as the scanner measured it). */
  acceptedAt?: string
  /** Dispatched: the SQS message id. */
  messageId?: string
  /** Dispatched to an HTTP target queue: what the forwarder's calls got. */
  delivery?: DeliveryRecord
}

export interface QueueCounts {
  /** Accepted and not yet in SQS: scheduled, being dispatched, or waiting for a dispatch retry. */
  pending: number
  /** Refused by SQS too many times: see the dead set. */
  dead: number
  /** Handed to SQS since the store was created. */
  dispatched: number
}
