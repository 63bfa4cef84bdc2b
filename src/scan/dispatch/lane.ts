// A lane: the entries bound for one target queue (one of a FIFO queue's lanes), waiting for a send slot, and what
// happens to them before a send: batching within SQS's limits, dropping entries whose lease would end mid-send, and
// holding back a FIFO group behind a refused job.
import type { ClaimedJob } from '../claims/claimed-job'

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
  | { sentAtMs: number; acceptedAtMs: number; messageId: string }
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

/** A FIFO group whose job SQS refused: its later jobs wait behind that job until it comes back for its retry. */
export interface Blocked {
  job: ClaimedJob
  /** Jobs held behind it so far (each comes back 1 ms after the one before). */
  place: number
  /** Local ms: the group stops waiting then (the job went elsewhere: cancelled, replaced, another scanner's). */
  untilMs: number
}

/** Entries bound for one queue (one lane of a FIFO queue), in claim order. */
export interface Lane {
  queueUrl: string
  fifo: boolean
  entries: QueuedSend[]
  /** FIFO lanes: groups waiting for a refused job's retry, by group id. */
  blocked: Map<string, Blocked>
  /** FIFO lanes: how long a refused job may hold its group back (its retry delay and a lease). */
  holdMs: (job: ClaimedJob) => number
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
  const lines: FailedLines = new Map()
  for (const entry of lane.entries) {
    if (sendDeadline(entry.job, maxSendMs) > latest) {
      lane.entries[kept++] = entry
      earliest = Math.min(earliest, sendDeadline(entry.job, maxSendMs))
    } else {
      const after = lane.fifo ? lineUp(lines, entry.job) : undefined
      entry.settle(entry.job, {
        error:
          entry.job.sendBy !== undefined && entry.job.sendBy + maxSendMs < entry.job.leaseDeadline
            ? 'not sent: its rate token was not used in time (SQS slow?); it asks for another'
            : 'not sent: its lease would have ended during the send (SQS slow?)',
        jobsFault: false,
        ...(after ? { after } : {}),
      })
    }
  }
  lane.entries.length = kept
  lane.earliestDeadline = earliest
  // A dropped FIFO job is retried later: the rest of its group waits for it like for a refused one.
  if (lines.size) holdBackGroups(lane, lines)
}

/**
 * When a job must be on its way, as lease deadlines count (a send may start while this is more than maxSendMs away):
 * its lease's end, or sooner, its rate token's (ClaimedJob.sendBy) plus that much.
 */
export function sendDeadline(job: ClaimedJob, maxSendMs: number): number {
  return job.sendBy === undefined ? job.leaseDeadline : Math.min(job.leaseDeadline, job.sendBy + maxSendMs)
}

/** Per FIFO group, the first of its jobs that was not sent, and how many are lined up behind it so far. */
export type FailedLines = Map<string, HeldBehind>

/**
 * Lines a job that was not sent up behind the first one of its group not sent before it (jobs come in claim order):
 * undefined for the first, which is retried on its own; the later ones are retried 1 ms after each other behind it.
 * Without this, two jobs of one group refused in one call would each draw their own retry delay, and the later one
 * could go first.
 */
export function lineUp(lines: FailedLines, job: ClaimedJob): HeldBehind | undefined {
  const first = lines.get(groupOf(job))
  if (!first) {
    lines.set(groupOf(job), { job, place: 0 })
    return undefined
  }
  first.place++
  return { job: first.job, place: first.place }
}

/**
 * A FIFO group's later jobs must not overtake one SQS refused: those still waiting in the lane are not sent but
 * released behind it (their retry comes after its retry). The lane sends one batch at a time, so none of them is on
 * its way already. (Within one SendMessageBatch call SQS takes or refuses each entry itself: a later entry of the
 * same group in the very call that failed may have been taken; nothing can unsend it.) The group stays blocked for
 * the jobs that reach the lane later, from later claims (heldBehind), until the refused job comes back.
 */
export function holdBackGroups(lane: Lane, firstFailed: FailedLines): void {
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
  const now = Date.now()
  if (lane.blocked.size > 1_000) for (const [g, b] of lane.blocked) if (b.untilMs <= now) lane.blocked.delete(g)
  for (const [group, blocker] of firstFailed) {
    lane.blocked.set(group, { job: blocker.job, place: blocker.place, untilMs: now + lane.holdMs(blocker.job) })
  }
}

/**
 * The refused job a FIFO job arriving in its lane must wait behind, if its group is blocked (holdBackGroups): its
 * group's earlier job is waiting for a retry, and this one must not reach SQS first. The refused job itself, on its
 * retry, lifts the block, and so does the block's end (it went to another scanner, or was cancelled or replaced).
 */
export function heldBehind(lane: Lane, job: ClaimedJob): HeldBehind | undefined {
  const group = groupOf(job)
  const blocked = lane.blocked.get(group)
  if (!blocked) return undefined
  if (blocked.job.id === job.id || blocked.untilMs <= Date.now()) {
    lane.blocked.delete(group)
    return undefined
  }
  blocked.place++
  return { job: blocked.job, place: blocked.place }
}

export const groupOf = (job: ClaimedJob): string => job.groupId ?? job.id
