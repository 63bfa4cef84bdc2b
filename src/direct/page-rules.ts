// The rules of a page request (GET /jobs, by queue or by tag): its size, and the queue it may name.
import type { Config } from '../config'
import { ValidationError } from '../errors'

/** A page size: 1-100. */
export function validateLimit(limit: number): number {
  if (!Number.isInteger(limit) || limit < 1 || limit > 100) {
    throw new ValidationError([{ path: 'limit', message: 'must be an integer from 1 to 100' }])
  }
  return limit
}

/** A queue filter: one of the configured queues (own keys only: "constructor" is no queue). */
export function validateQueueFilter(config: Pick<Config, 'queues'>, queue: string | undefined): void {
  if (queue === undefined || Object.hasOwn(config.queues, queue)) return
  const known = Object.keys(config.queues).map((q) => JSON.stringify(q))
  throw new ValidationError([{ path: 'queue', message: `must be one of the configured queues: ${known.join(', ')}` }])
}
