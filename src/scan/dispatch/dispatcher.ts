// Hands claimed jobs to SQS: SendMessageBatch of <= 10 entries and <= the batch byte limit, many calls in flight over
// one keep-alive client. It never acks or releases: it reports which jobs SQS accepted and which it refused, and the
// scanner settles the leases.
import type { SQSClient } from '@aws-sdk/client-sqs'
import { isFifoQueue } from '../../queues'
import { messageBody, messageBytes } from '../../sqs/envelope'
import { hashId } from '../../store/keys'
import { type HeldBehind, heldBehind, type Lane, type SendResult, sendDeadline, takeBatch } from './lane'
import type { ClaimedJob } from '../claims/claimed-job'
import { type CallPace, sendBatch } from './send-batch'
import { type PaceChange, SendPace } from './send-pace'
import { SqsWarmUp } from './warm-up'

export interface DispatchOptions {
  sqs: SQSClient
  /** Target name -> queue URL. */
  queues: Record<string, string>
  /** SendMessageBatch calls in flight at once, at most: fewer while SQS answers slowly (src/scan/dispatch/send-pace.ts). */
  concurrency: number
  /** SQS limit for one message and for a whole batch (1 MiB). */
  maxBatchBytes: number
  /**
   * Longest a send can take (every SDK attempt, the answer's body included): a job starts a send only while its
   * lease outlasts this, and a send still going then is aborted (its jobs released as maybe sent).
   */
  maxSendMs: number
  /**
   * The timeout of one call while SQS answers quickly; slow answers and timeouts raise it up to `maxSendMs`. Default:
   * `maxSendMs` (a fixed timeout).
   */
  baseSendMs?: number
  /** The pace slowed down: a round of timeouts halved the calls in flight and doubled the timeout (the log says so). */
  onSlowed?: (change: PaceChange) => void
  /**
   * FIFO: how long a refused job holds back the later jobs of its group that reach this dispatcher (its retry
   * delay, and a lease for its retry's claim: src/scan/create-scanner.ts). Default 0: only the jobs already in its lane.
   */
  fifoHoldMs?: (job: ClaimedJob) => number
}

export interface SentJob {
  job: ClaimedJob
  /** Local time when its SendMessageBatch call went out. */
  sentAtMs: number
  /** Local time when SQS answered that it had the message. */
  acceptedAtMs: number
  /** The id SQS gave the message. */
  messageId: string
}

export interface RefusedJob {
  job: ClaimedJob
  error: string
  /**
   * True when the job itself was refused (SQS says the sender is at fault, or the target is unknown): it counts
   * toward the dead set. False for failures that are not the job's fault: SQS unreachable, throttling, server errors.
   */
  jobsFault: boolean
  /** The send failed in a way SQS may still have accepted: the job may be in SQS (lua/release.lua marks it). */
  maybeSent?: boolean
  /**
   * FIFO only: the earlier job of the same message group that SQS did not take. This one was held back, not sent,
   * and must be retried after it (src/scan/claims/backoff.ts) so the group keeps its order.
   */
  after?: HeldBehind
}

export interface DispatchOutcome {
  sent: SentJob[]
  refused: RefusedJob[]
}

/** FIFO order holds within a message group, so a group's batches go one after another, on one of these lanes. */
const FIFO_LANES = 8

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
  private readonly warmUp: SqsWarmUp
  /** How many calls may be in flight, and how long each may take, from SQS's recent answers. */
  readonly pace: SendPace
  private readonly callPace: CallPace
  /**
   * SendMessageBatch calls that carried jobs, since this dispatcher was made (SDK retries inside a call and the
   * warm-up, which carries none, not counted): what SQS bills, and with the jobs sent, the jobs per request.
   */
  requests = 0

  constructor(private readonly options: DispatchOptions) {
    this.warmUp = new SqsWarmUp(options.sqs, Object.values(options.queues))
    this.pace = new SendPace({
      maxInFlight: options.concurrency,
      baseTimeoutMs: options.baseSendMs ?? options.maxSendMs,
      maxTimeoutMs: options.maxSendMs,
    })
    this.callPace = { pace: this.pace, slowed: options.onSlowed }
  }

  /** Readies the connection to SQS for a job about to fall due, unless a send kept it warm (src/scan/dispatch/warm-up.ts). */
  warm(): Promise<void> {
    return this.warmUp.warm()
  }

  /**
   * Resolves once SQS has answered for every job (accepted or refused). `dispatchedAtMs` is the messages'
   * `dispatchedAt`: Redis's clock, like every other time in the message (the scanner converts its own clock with the
   * offset it measures at each claim); this process's clock only when no caller knows better.
   */
  async dispatch(jobs: readonly ClaimedJob[], dispatchedAtMs = Date.now()): Promise<DispatchOutcome> {
    const outcome: DispatchOutcome = { sent: [], refused: [] }
    // One promise per call, not per job: a burst dispatches tens of thousands of jobs.
    let waiting = 0
    let done!: () => void
    const allSettled = new Promise<void>((resolve) => (done = resolve))
    const settle = (job: ClaimedJob, result: SendResult) => {
      if ('error' in result) outcome.refused.push({ job, ...result })
      else {
        const { sentAtMs, acceptedAtMs, messageId } = result
        outcome.sent.push({ job, sentAtMs, acceptedAtMs, messageId })
      }
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
      const lane = this.laneFor(job)
      const after = lane.fifo ? heldBehind(lane, job) : undefined
      if (after) {
        outcome.refused.push({
          job,
          error: `not sent: job "${after.job.id}" of its FIFO group was not accepted and waits for a retry; this one must go after it`,
          jobsFault: false,
          after,
        })
        continue
      }
      const body = messageBody(job, dispatchedAtMs)
      waiting++
      lane.entries.push({ job, body, bytes: messageBytes(body, job.id), settle })
      const deadline = sendDeadline(job, this.options.maxSendMs)
      if (deadline < lane.earliestDeadline) lane.earliestDeadline = deadline
    }
    if (waiting === 0) return outcome
    this.pump()
    await allSettled
    return outcome
  }

  /** Jobs that went to the dead set: their FIFO groups stop waiting for them. */
  forgetRefused(ids: readonly string[]): void {
    const dead = new Set(ids)
    for (const lane of this.laneOrder) {
      for (const [group, blocked] of lane.blocked) if (dead.has(blocked.job.id)) lane.blocked.delete(group)
    }
  }

  private laneFor(job: ClaimedJob): Lane {
    const fifo = isFifoQueue(job.queue)
    const key = fifo ? `${job.queue}#${hashId(job.groupId ?? job.id) % FIFO_LANES}` : job.queue
    let lane = this.lanes.get(key)
    if (!lane) {
      lane = {
        queueUrl: this.options.queues[job.queue]!,
        fifo,
        entries: [],
        busy: false,
        earliestDeadline: Infinity,
        blocked: new Map(),
        holdMs: this.options.fifoHoldMs ?? (() => 0),
      }
      this.lanes.set(key, lane)
      this.laneOrder.push(lane)
    }
    return lane
  }

  /** Fills free send slots, taking lanes in turn so one busy queue cannot starve another. */
  private pump(): void {
    while (this.active < this.pace.inFlight) {
      const lane = this.nextReadyLane()
      if (!lane) return
      const batch = takeBatch(lane, this.options.maxBatchBytes, this.options.maxSendMs)
      if (batch.length === 0) continue
      this.active++
      this.requests++
      lane.busy = lane.fifo
      void sendBatch(this.options.sqs, lane, batch, this.callPace).finally(() => {
        this.warmUp.used()
        this.active--
        lane.busy = false
        this.pump()
      })
    }
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
}
