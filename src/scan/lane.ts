// A lane: the entries bound for one target queue (one of a FIFO queue's lanes), waiting for a send slot, and what
// happens to them before a send: batching within SQS's limits, dropping entries whose lease would end mid-send, and
// holding back a FIFO group behind a refused job.
import type { ClaimedJob } from './leases'

/** The refused job a FIFO job waits behind, and its place in that line (1 = right behind it). */
export interface HeldBehind {
  job: ClaimedJob
  place: number
}

/**
 * Accepted (local times: the call went out, SQS answered), or not: refused, or failed in a way SQS may still have
 * accepted (`maybeSent`: a timeout, a reset connection, a server error).
 */
export type SendResult =
  | { sentAtMs: number; acceptedAtMs: number }
  | { error: string; jobsFault: boolean; maybeSent?: boolean; after?: HeldBehind }

/** SendMessageBatch takes at most 10 entries. */
const MAX_ENTRIES = 10

/** A job waiting for a send slot, and how to report what became of it. */
export interface QueuedSend {
  job: ClaimedJob
  body: string
  bytes: number
  settle(job: ClaimedJob, result: SendResult): void
}

/** Entries bound for one queue (one lane of a FIFO queue), in claim order. */
export interface Lane {
  queueUrl: string
  fifo: boolean
  entries: QueuedSend[]
  /** FIFO lanes send one batch at a time. */
  busy: boolean
  /** No entry's lease ends before this (a lower bound: it may be stale-low, never high). */
  earliestDeadline: number
}

/** The lane's next entries: at most 10 and at most maxBatchBytes (but always at least one). */
export function takeBatch(lane: Lane, maxBatchBytes: number, maxSendMs: number): QueuedSend[] {
  dropStale(lane, maxSendMs)
  let bytes = 0
  let count = 0
  while (count < Math.min(MAX_ENTRIES, lane.entries.length)) {
    const next = lane.entries[count]!
    if (count > 0 && bytes + next.bytes > maxBatchBytes) break
    bytes += next.bytes
    count++
  }
  const batch = lane.entries.splice(0, count)
  if (lane.entries.length === 0) lane.earliestDeadline = Infinity
  return batch
}

/**
 * A job whose lease would end during its send is not sent: another scanner may claim it meanwhile, and it would go
 * out twice. It is reported refused, so the scanner releases it for a retry (when SQS is slow, e.g. hanging
 * connections, and work piles up in the lanes).
 */
function dropStale(lane: Lane, maxSendMs: number): void {
  const latest = Date.now() + maxSendMs
  if (lane.earliestDeadline > latest) return // the common case: nothing has waited anywhere near that long
  // A full pass: claims of several shards interleave in a lane, so deadlines are not in order.
  let kept = 0
  let earliest = Infinity
  for (const entry of lane.entries) {
    if (entry.job.leaseDeadline > latest) {
      lane.entries[kept++] = entry
      earliest = Math.min(earliest, entry.job.leaseDeadline)
    } else {
      entry.settle(entry.job, {
        error: 'not sent: its lease would have ended during the send (SQS slow?)',
        jobsFault: false,
      })
    }
  }
  lane.entries.length = kept
  lane.earliestDeadline = earliest
}

/**
 * A FIFO group's later jobs must not overtake one SQS refused: those still waiting in the lane are not sent but
 * released behind it (their retry comes after its retry). The lane sends one batch at a time, so none of them is on
 * its way already. (Within one SendMessageBatch call SQS takes or refuses each entry itself: a later entry of the
 * same group in the very call that failed may have been taken; nothing can unsend it.)
 */
export function holdBackGroups(lane: Lane, failed: ClaimedJob[]): void {
  const firstFailed = new Map<string, HeldBehind>()
  for (const job of failed) if (!firstFailed.has(groupOf(job))) firstFailed.set(groupOf(job), { job, place: 0 })
  lane.entries = lane.entries.filter((entry) => {
    const blocker = firstFailed.get(groupOf(entry.job))
    if (!blocker) return true
    blocker.place++
    entry.settle(entry.job, {
      error: `not sent: job "${blocker.job.id}" of its FIFO group was not accepted, and this one must go after it`,
      jobsFault: false,
      after: { job: blocker.job, place: blocker.place },
    })
    return false
  })
  if (lane.entries.length === 0) lane.earliestDeadline = Infinity
}

export const groupOf = (job: ClaimedJob): string => job.groupId ?? job.id
