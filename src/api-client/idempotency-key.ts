// The Idempotency-Key of one job write (docs/idempotency.md): made once per schedule(), scheduleMany() and reschedule() call
// (unless the caller gives one) and sent on each of its attempts, so that an attempt after one the API applied (its
// answer lost, or a 503 after the write) changes nothing and answers as that one did, also once the job has left for
// SQS.
import { randomBytes } from 'node:crypto'

/** 16 random bytes, base64url: 22 characters within the API's rule (8-64 of A-Z a-z 0-9 _ -). */
export function newIdempotencyKey(): string {
  return randomBytes(16).toString('base64url')
}

/** The request header that carries it. */
export function idempotencyHeader(key: string): Record<string, string> {
  return { 'idempotency-key': key }
}
