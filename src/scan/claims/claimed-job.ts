// A job as a claim hands it to the scanner (leased, with its attempt and lease deadline), and what one claim of a
// shard returns. Types only, apart from the leases that make them, so the parts that pass claimed jobs along (lanes,
// backoff, dispatch) need not import the claim code.
import type { Acceptance } from '../../store/scripts/ack'
import type { StoredJob } from '../../store/record'
import type { ClaimOutcome } from '../../store/scripts/claim'

export interface ClaimedJob extends StoredJob {
  id: string
  shard: number
  /** Proves this lease: ack and release act only for it. */
  token: string
  /** Dispatch attempt, 1 on the first claim. */
  attempt: number
  dueMs: number
  /**
   * Its place in its FIFO group's order (Redis ms, src/scan/loop/fifo-merge.ts): its due time, or, taken again after a
   * release for a retry, the retry time it was released for (lua/claim.lua). The scanner fixes a retry time once on
   * its clock (src/scan/claims/backoff.ts), so the retries of one group come back in their order whichever shard
   * holds each.
   */
  orderMs: number
  /** Redis's time when it was claimed: how late the claim took it is claimedAtMs - dueMs. */
  claimedAtMs: number
  /** Local time the lease ends (counted from before the claim was sent, so never late). */
  leaseDeadline: number
  /**
   * Local time by which its send must start, when sooner than its lease allows: a rate's token (src/flow/flow-gate.ts)
   * is used while it is fresh, or given back (the job asks again), so a slow SQS cannot gather a limited key's jobs
   * and let them go together.
   */
  sendBy?: number
  /** Set once SQS accepted it: its message id and when, for the dispatch receipt the ack writes. */
  accepted?: Acceptance
  /**
   * Set when its send ended with no answer that SQS may still have acted on (maybe sent): its retry waits this long
   * at least (the pace's current timeout: src/scan/dispatch/send-pace.ts), not only its backoff.
   */
  holdMs?: number
}

/** What one claim of a shard returns: its outcome (src/store/scripts/claim.ts) and its jobs, leased. */
export interface ClaimResult extends ClaimOutcome {
  jobs: ClaimedJob[]
}
