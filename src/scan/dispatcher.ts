// Hands claimed jobs to SQS: SendMessageBatch of <= 10 entries and <= the batch byte limit, many calls in flight over
// one keep-alive client. It never acks or releases: it reports which jobs SQS accepted and which it refused, and the
// scanner settles the leases.
import { SendMessageBatchCommand, type SendMessageBatchRequestEntry, type SQSClient } from '@aws-sdk/client-sqs'
import { isFifoQueue } from '../config'
import { deduplicationId, JOB_ID_ATTRIBUTE, messageBody, messageBytes } from '../sqs/envelope'
import { hashId } from '../store/keys'
import type { ClaimedJob } from './leases'

export interface DispatchOptions {
  sqs: SQSClient
  /** Target name -> queue URL. */
  queues: Record<string, string>
  /** SendMessageBatch calls in flight at once. */
  concurrency: number
  /** SQS limit for one message and for a whole batch (1 MiB). */
  maxBatchBytes: number
  /** Longest a send can take (every SDK attempt): a job starts a send only while its lease outlasts this. */
  maxSendMs: number
}

export interface SentJob {
  job: ClaimedJob
  /** Local time when SQS answered that it had the message. */
  acceptedAtMs: number
}

export interface RefusedJob {
  job: ClaimedJob
  error: string
  /**
   * True when the job itself was refused (SQS says the sender is at fault, or the target is unknown): it counts
   * toward the dead set. False for failures that are not the job's fault: SQS unreachable, throttling, server errors.
   */
  jobsFault: boolean
  /**
   * FIFO only: the earlier job of the same message group that SQS did not take. This one was held back, not sent,
   * and must be retried after it (src/scan/backoff.ts) so the group keeps its order.
   */
  after?: HeldBehind
}

/** The refused job a FIFO job waits behind, and its place in that line (1 = right behind it). */
export interface HeldBehind {
  job: ClaimedJob
  place: number
}

type SendResult = { acceptedAtMs: number } | { error: string; jobsFault: boolean; after?: HeldBehind }

export interface DispatchOutcome {
  sent: SentJob[]
  refused: RefusedJob[]
}

const MAX_ENTRIES = 10
/** FIFO order holds within a message group, so a group's batches go one after another, on one of these lanes. */
const FIFO_LANES = 8

/** A job waiting for a send slot, and how to report what became of it. */
interface QueuedSend {
  job: ClaimedJob
  body: string
  bytes: number
  settle(job: ClaimedJob, result: SendResult): void
}

/** Entries bound for one queue (one lane of a FIFO queue), in claim order. */
interface Lane {
  queueUrl: string
  fifo: boolean
  entries: QueuedSend[]
  /** FIFO lanes send one batch at a time. */
  busy: boolean
  /** No entry's lease ends before this (a lower bound: it may be stale-low, never high). */
  earliestDeadline: number
}

/**
 * Calls, not messages, are what an SQS endpoint (and the SDK's per-call signing) pays for. Entries wait in a lane
 * per target queue; each free send slot takes up to 10 of them. At low load a claim's jobs leave at once; when every
 * slot is busy, entries from several claims merge into full batches, so the call rate drops exactly when the
 * endpoint is the bottleneck.
 */
export class Dispatcher {
  private readonly lanes = new Map<string, Lane>()
  private laneOrder: Lane[] = []
  private cursor = 0
  private active = 0

  constructor(private readonly options: DispatchOptions) {}

  /** Resolves once SQS has answered for every job (accepted or refused). */
  async dispatch(jobs: readonly ClaimedJob[]): Promise<DispatchOutcome> {
    const outcome: DispatchOutcome = { sent: [], refused: [] }
    const now = Date.now()
    // One promise per call, not per job: a burst dispatches tens of thousands of jobs.
    let waiting = 0
    let done!: () => void
    const allSettled = new Promise<void>((resolve) => (done = resolve))
    const settle = (job: ClaimedJob, result: SendResult) => {
      if ('error' in result) outcome.refused.push({ job, ...result })
      else outcome.sent.push({ job, acceptedAtMs: result.acceptedAtMs })
      if (--waiting === 0) done()
    }
    for (const job of jobs) {
      if (!Object.hasOwn(this.options.queues, job.queue)) {
        outcome.refused.push({
          job,
          error: `unknown target queue "${job.queue}": it is not in QUEUES`,
          jobsFault: true,
        })
        continue
      }
      const body = messageBody(job, now)
      waiting++
      const lane = this.laneFor(job)
      lane.entries.push({ job, body, bytes: messageBytes(body, job.id), settle })
      if (job.leaseDeadline < lane.earliestDeadline) lane.earliestDeadline = job.leaseDeadline
    }
    if (waiting === 0) return outcome
    this.pump()
    await allSettled
    return outcome
  }

  private laneFor(job: ClaimedJob): Lane {
    const fifo = isFifoQueue(job.queue)
    const key = fifo ? `${job.queue}#${hashId(job.groupId ?? job.id) % FIFO_LANES}` : job.queue
    let lane = this.lanes.get(key)
    if (!lane) {
      lane = { queueUrl: this.options.queues[job.queue]!, fifo, entries: [], busy: false, earliestDeadline: Infinity }
      this.lanes.set(key, lane)
      this.laneOrder.push(lane)
    }
    return lane
  }

  /** Fills free send slots, taking lanes in turn so one busy queue cannot starve another. */
  private pump(): void {
    while (this.active < this.options.concurrency) {
      const lane = this.nextReadyLane()
      if (!lane) return
      const batch = this.take(lane)
      if (batch.length === 0) continue
      this.active++
      lane.busy = lane.fifo
      void this.send(lane, batch).finally(() => {
        this.active--
        lane.busy = false
        this.pump()
      })
    }
  }

  /**
   * A job whose lease would end during its send is not sent: another scanner may claim it meanwhile, and it would go
   * out twice. It is reported refused, so the scanner releases it for a retry (when SQS is slow, e.g. hanging
   * connections, and work piles up in the lanes).
   */
  private dropStale(lane: Lane): void {
    const latest = Date.now() + this.options.maxSendMs
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

  private nextReadyLane(): Lane | undefined {
    for (let i = 0; i < this.laneOrder.length; i++) {
      const lane = this.laneOrder[(this.cursor + i) % this.laneOrder.length]!
      if (lane.entries.length && !lane.busy) {
        this.cursor = (this.cursor + i + 1) % this.laneOrder.length
        return lane
      }
    }
    return undefined
  }

  /** The lane's next entries: at most 10 and at most maxBatchBytes (but always at least one). */
  private take(lane: Lane): QueuedSend[] {
    this.dropStale(lane)
    let bytes = 0
    let count = 0
    while (count < Math.min(MAX_ENTRIES, lane.entries.length)) {
      const next = lane.entries[count]!
      if (count > 0 && bytes + next.bytes > this.options.maxBatchBytes) break
      bytes += next.bytes
      count++
    }
    const batch = lane.entries.splice(0, count)
    if (lane.entries.length === 0) lane.earliestDeadline = Infinity
    return batch
  }

  private async send(lane: Lane, batch: QueuedSend[]): Promise<void> {
    const entries: SendMessageBatchRequestEntry[] = batch.map(({ job, body }, i) => ({
      Id: `e${i}`,
      MessageBody: body,
      MessageAttributes: { [JOB_ID_ATTRIBUTE]: { DataType: 'String', StringValue: job.id } },
      ...(lane.fifo
        ? { MessageGroupId: groupOf(job), MessageDeduplicationId: deduplicationId(job.id, job.version) }
        : {}),
    }))
    const answered = new Set<number>()
    const failed: ClaimedJob[] = []
    const answer = (i: number, result: SendResult) => {
      if (answered.has(i) || !batch[i]) return
      answered.add(i)
      if ('error' in result) failed.push(batch[i].job)
      batch[i].settle(batch[i].job, result)
    }
    try {
      const result = await this.options.sqs.send(
        new SendMessageBatchCommand({ QueueUrl: lane.queueUrl, Entries: entries }),
      )
      const acceptedAtMs = Date.now()
      for (const ok of result.Successful ?? []) answer(Number(ok.Id!.slice(1)), { acceptedAtMs })
      for (const failed of result.Failed ?? []) {
        answer(Number(failed.Id!.slice(1)), {
          error: `SQS refused the message: ${failed.Code ?? 'error'}: ${failed.Message ?? ''}`.trim(),
          jobsFault: failed.SenderFault !== false,
        })
      }
      // An entry SQS did not mention was not accepted: never assume success.
      batch.forEach((_, i) => answer(i, { error: 'SQS did not answer for this entry', jobsFault: false }))
    } catch (e) {
      const error = `SendMessageBatch failed: ${e instanceof Error ? `${e.name}: ${e.message}` : String(e)}`
      const jobsFault = isClientFault(e)
      batch.forEach((_, i) => answer(i, { error, jobsFault }))
    }
    if (lane.fifo && failed.length) this.holdBackGroups(lane, failed)
  }

  /**
   * A FIFO group's later jobs must not overtake one SQS refused: those still waiting in the lane are not sent but
   * released behind it (their retry comes after its retry). The lane sends one batch at a time, so none of them is on
   * its way already. (Within one SendMessageBatch call SQS takes or refuses each entry itself: a later entry of the
   * same group in the very call that failed may have been taken; nothing can unsend it.)
   */
  private holdBackGroups(lane: Lane, failed: ClaimedJob[]): void {
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
}

const groupOf = (job: ClaimedJob): string => job.groupId ?? job.id

/**
 * A call SQS rejected as the caller's fault (a 4xx: the queue does not exist, access denied, a bad parameter) will
 * fail the same way again: it counts toward the dead set. Network errors, 5xx and throttling are SQS's or the
 * network's trouble and pass.
 */
function isClientFault(e: unknown): boolean {
  const err = e as { $fault?: string; $metadata?: { httpStatusCode?: number }; name?: string }
  const status = err?.$metadata?.httpStatusCode
  if (err?.$fault !== 'client' || status === undefined) return false
  return status >= 400 && status < 500 && status !== 429 && !/throttl/i.test(err.name ?? '')
}
