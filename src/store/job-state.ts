// The states of a stored job (one in Redis, dead included) and the stored encodings that hold them, named once (docs/internals.md draws the
// lifecycle). These formats are stored with the jobs: change them and existing jobs are stranded.

/**
 * Where a stored job is, as lua/get.lua reports it:
 *  scheduled    in its due bucket, scored by its due time
 *  dispatching  leased to a scanner (inflight, scored by the lease expiry; lease with a token)
 *  retrying     SQS refused it; inflight, scored by its next attempt (lease with an empty token)
 *  dead         SQS refused it on every attempt (dead set, scored by when it died)
 * A job handed to SQS (acknowledged) or cancelled is gone: no state.
 */
export type JobState = 'scheduled' | 'dispatching' | 'retrying' | 'dead'

/** The per-queue counters, fields "<queue>|<counter>" of a shard's counts hash. `pending` counts the jobs not sent
 * yet and not dead (scheduled + dispatching + retrying): a stored job is pending or dead. */
export type Counter = 'pending' | 'dead' | 'dispatched'

export function decodeCounterField(field: string): { queue: string; counter: string } {
  const at = field.lastIndexOf('|')
  return { queue: field.slice(0, at), counter: field.slice(at + 1) }
}

/**
 * A lease, stored in a shard's leases hash as "<attempt>:<dueMs>:<recoveries>:<faults>:<token>", or as
 * "<attempt>:<dueMs>:<token>" while both counters are 0 (the only form before they existed: such leases still
 * decode). Tokens never hold ':'.
 */
export interface Lease {
  /** Dispatch attempt, 1 on the first claim. */
  attempt: number
  /** The job's original due time (ms): lateness is measured from it, whatever the retries. */
  dueMs: number
  /** Leases of this job that expired (the scanner holding it died): MAX_DISPATCH_ATTEMPTS of them make it dead. */
  recoveries: number
  /** SQS refusals that were the job's own fault: MAX_DISPATCH_ATTEMPTS of them make it dead. */
  faults: number
  /** The claim that holds it; empty while the job waits for a dispatch retry (no scanner holds it). */
  token: string
}

export function decodeLease(lease: string): Lease {
  const full = /^(\d+):(\d+):(\d+):(\d+):([^:]*)$/.exec(lease)
  if (full) {
    const [, attempt, dueMs, recoveries, faults, token] = full
    return {
      attempt: Number(attempt),
      dueMs: Number(dueMs),
      recoveries: Number(recoveries),
      faults: Number(faults),
      token: token!,
    }
  }
  const short = /^(\d+):(\d+):([^:]*)$/.exec(lease)
  if (!short) throw new Error(`corrupt lease: ${lease}`)
  return { attempt: Number(short[1]), dueMs: Number(short[2]), recoveries: 0, faults: 0, token: short[3]! }
}

/** The last dispatch error, stored as JSON in a shard's errors hash. */
export interface StoredDispatchError {
  attempts: number
  /** When it failed (ms). */
  at: number
  message: string
  /** A send failed in a way SQS may still have accepted (lua/release.lua): the job may run already. */
  maybeSent?: boolean
  /**
   * A dead job's due time (ms, as text), which the dead set's score (when it died) replaces: a write sent again with
   * the token that stored the job answers with it (lua/enqueue.lua). Absent for a job that died before it was kept.
   */
  due?: string
}

export function decodeDispatchError(json: string): StoredDispatchError {
  return JSON.parse(json) as StoredDispatchError
}
