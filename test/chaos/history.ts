// The chaos run's history: what the clients asked and were answered, what the consumers received, and which faults
// the nemesis injected when. The checker (test/chaos/checker.ts) reads only this: never the engine's state.
//
// Every write carries a `token` in its payload, unique to that write: a delivery's payload names the write (the job
// version) it came from, independently of what the engine says about versions.

/** ok: answered with success; fail: answered with a refusal that did nothing (4xx); unknown: no answer, or an answer
 * (5xx, a timeout) that leaves open whether the write happened (Jepsen's indeterminate). */
export type Outcome = 'ok' | 'fail' | 'unknown'

export type JobOpKind = 'create' | 'put' | 'cancel' | 'tag-cancel'
export type ScheduleOpKind = 'sched-put' | 'sched-pause' | 'sched-resume' | 'sched-delete' | 'sched-tag-delete'

export interface Op {
  /** Position in the history (invoke order). */
  n: number
  client: string
  kind: JobOpKind | ScheduleOpKind
  /**
   * Job or schedule id; a tag-cancel's or sched-tag-delete's tag. A create without an id names the id the client gave it (or the answer's).
   */
  id: string
  /**
   * How the create was sent: POST /jobs (with or without an id), POST /jobs/batch, or PUT /jobs/{id}; a write of a
   * debounced job (POST with onConflict debounce: recorded as a put, status 200 when it replaced the pending version).
   */
  via?: 'post' | 'post-no-id' | 'batch' | 'put' | 'debounce'
  /** The job's or schedule's tags (a write), as sent. */
  tags?: string[]
  /** A debounced write: how long after its incarnation's first write the job is due at the latest. */
  maxWaitMs?: number
  /** An ok tag-cancel: jobs it answered as cancelled, and as in flight (not cancelled). */
  cancelled?: number
  inFlight?: number
  /** An ok sched-tag-delete (DELETE /schedules?tag=, called until done): schedules it deleted, and its last `done`. */
  deleted?: number
  done?: boolean
  /** The write's payload token (writes only). */
  token?: string
  /** What was asked: a delay or an absolute time (jobs), a rate from a start (schedules). */
  delayMs?: number
  runAtMs?: number
  everyMs?: number
  startAtMs?: number
  /** Local clock (the same machine's as Redis and SQS): when the call was made and when it ended. */
  invokeAt: number
  completeAt: number
  outcome: Outcome
  status?: number
  code?: string
  /** The due time the answer named (ok job writes). */
  answerRunAtMs?: number
  /** HTTP requests the client made for this call (its own retries of 503s and lost answers included). */
  attempts?: number
  /** A user-level retry of op `retryOf` (same id and token). */
  retryOf?: number
  /** FIFO jobs: the message group the job was written to. */
  groupId?: string
  /** The flow key the job was written with (docs/flow-control.md). */
  flowKey?: string
}

/**
 * An operator's flow control call (PUT /flow/keys/{key}): a pause, a resume, or a rate. Its outcome as for writes: a
 * pause whose answer was lost may or may not hold, a resume whose answer was lost may have lifted the pause.
 */
export interface FlowOp {
  kind: 'pause' | 'resume' | 'rate'
  flowKey: string
  rate?: number
  burst?: number
  invokeAt: number
  completeAt: number
  outcome: Outcome
}

export interface Delivery {
  jobId: string
  /** The payload's token: which write this job version came from. */
  token?: string
  messageId: string
  /** SQS's SentTimestamp: when SQS took the message. */
  sentAt: number
  receivedAt: number
  receiveCount: number
  /** The envelope's runAt (the engine's word, shown in reports only). */
  runAtMs: number
  /** The envelope's createdAt: a create applied twice (a retried request) shows two. */
  createdAtMs?: number
  scheduleId?: string
  occurrenceAtMs?: number
  /** FIFO queues: the message group, and SQS's SequenceNumber (a group's send order, as a decimal string). */
  groupId?: string
  sequence?: string
}

export type FaultKind =
  | 'scanner-kill'
  | 'scanner-pause'
  | 'scanner-partition'
  | 'scanner-skew'
  | 'api-partition'
  | 'primary-kill'
  | 'replica-cut-primary-kill'
  | 'sqs-refuse'
  | 'sqs-outage'
  | 'sqs-drop-answers'

export interface Fault {
  kind: FaultKind
  start: number
  end: number
  target?: string
  /** e.g. how many answers were dropped, the refuse rate, the skew. */
  detail?: string
  /** SendMessageBatch answers dropped after SQS took the messages (sqs-drop-answers). */
  count?: number
}

/**
 * What the environment did to the run that the nemesis did not inject, as the scanners printed it when it happened
 * (test/faults/scanner-worker.ts). A slow machine makes sends time out: each SendMessageBatch attempt that may have
 * reached SQS without a definite answer is `unanswered` (its entries), each job released after such a send is
 * `maybe-sent`. Either can be one copy more of a job in SQS, never more than one per entry.
 */
export interface EnvironmentFault {
  kind: 'unanswered' | 'maybe-sent'
  /** The runner's clock when the line arrived (a skewed scanner's own clock is not the run's). */
  at: number
  scanner: string
  /** Entries of the attempt (unanswered) or jobs released (maybe-sent). */
  count: number
}

/**
 * When a scanner started the SendMessageBatch that carried a flow-keyed job to SQS (its onSent's request start), on
 * the runner's clock (a skewed scanner's own clock corrected by its skew). Flow control promises a limited key's
 * sends START at its rate: where SQS stamps them also depends on how fast SQS takes them.
 */
export interface SendStart {
  jobId: string
  at: number
  scanner: string
}

export interface RunSettings {
  claimBatchSize: number
  /** Leased-but-unsettled jobs per scanner: what one scanner death can send again. */
  maxInFlight: number
  leaseMs: number
  scanners: number
  /** Clock tolerance of the due-time checks, ms (documented in RELIABILITY.md). */
  toleranceMs: number
}

export interface History {
  seed: number
  startedAt: number
  /** When faults stopped and writes ended. */
  quietAt: number
  /** When the consumers stopped: due times after this are not expected to have been delivered. */
  endedAt: number
  settings: RunSettings
  ops: Op[]
  deliveries: Delivery[]
  faults: Fault[]
  /** Absent in histories saved before it was recorded. */
  environment?: EnvironmentFault[]
  /** Send starts of flow-keyed jobs SQS took, as the scanners printed them (absent in histories saved before). */
  sendStarts?: SendStart[]
  /** Flow control calls, in invoke order (absent in histories saved before flow control). */
  flow?: FlowOp[]
}

/** Writes that create a job version. */
export const isJobWrite = (op: Op) => op.kind === 'create' || op.kind === 'put'
export const isScheduleOp = (op: Op) => op.kind.startsWith('sched-')

export function groupBy<T>(items: readonly T[], key: (item: T) => string | undefined): Map<string, T[]> {
  const out = new Map<string, T[]>()
  for (const item of items) {
    const k = key(item)
    if (k === undefined) continue
    const list = out.get(k)
    if (list) list.push(item)
    else out.set(k, [item])
  }
  return out
}
