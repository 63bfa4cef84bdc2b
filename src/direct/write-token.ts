// The write token: one per logical write (a create or a create-or-replace), the same on every attempt of it. Kept
// with the job record it stored and copied into the job's dispatch receipt, so that an attempt sent again after one
// that was applied (its answer lost, or a 503 after the write) changes nothing and is answered as that one was, also
// once the job has left for SQS (lua/enqueue.lua). Over HTTP it is the Idempotency-Key request header; DelayQueue
// takes it as the `idempotencyKey` option. Kept only when sent: a job written without one costs no byte more.
import { ValidationError } from '../errors'

/** The rule, as error messages and docs state it. */
export const WRITE_TOKEN_RULE = 'must be 8 to 64 characters of A-Z, a-z, 0-9, "_" and "-"'

// No ":" nor "\n": the record and the receipt are separated by those (src/store/record.ts, src/store/receipt.ts).
const WRITE_TOKEN = /^[A-Za-z0-9_-]{8,64}$/

/** Per-write options of DelayQueue.schedule / reschedule. */
export interface WriteOptions {
  /**
   * Makes a write safe to send again: a later call with the same key for the same job id, while the job it stored
   * is still pending or its dispatch receipt is kept (DISPATCH_RECEIPT_TTL_MS), changes nothing and answers as the
   * first did. Make one per logical write (e.g. 16 random bytes in base64url), never reuse it for another write.
   */
  idempotencyKey?: string
}

/** The token, or undefined when none was given; a ValidationError naming `path` when it breaks the rule. */
export function validateWriteToken(value: unknown, path: string): string | undefined {
  if (value === undefined) return undefined
  if (typeof value !== 'string' || !WRITE_TOKEN.test(value)) {
    throw new ValidationError([{ path, message: WRITE_TOKEN_RULE }])
  }
  return value
}

/**
 * A write with a token names its job: the token is kept with the job under its id, and a create sent again without
 * one would get another id on each attempt.
 */
export function requireIdWithKey(input: unknown, writeToken: string | undefined): void {
  if (writeToken && (input as { id?: unknown }).id === undefined) {
    throw new ValidationError([{ path: 'id', message: 'is required with an idempotency key' }])
  }
}
