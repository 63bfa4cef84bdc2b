// Hands claimed jobs to SQS: SendMessageBatch of <= 10 entries and <= the batch byte limit, many calls in flight over
// one keep-alive client. It never acks or releases: it reports which jobs SQS accepted and which it refused, and the
// scanner settles the leases.
import { SendMessageBatchCommand, type SendMessageBatchRequestEntry, type SQSClient } from '@aws-sdk/client-sqs'
import { isFifoQueue } from './config'
import { deduplicationId, JOB_ID_ATTRIBUTE, messageBody, messageBytes } from './envelope'
import { hashId } from './keys'
import type { ClaimedJob } from './leases'
import { Semaphore } from './semaphore'

export interface DispatchOptions {
  sqs: SQSClient
  /** Target name -> queue URL. */
  queues: Record<string, string>
  concurrency: number
  /** SQS limit for one message and for a whole batch (1 MiB). */
  maxBatchBytes: number
}

export interface SentJob {
  job: ClaimedJob
  /** Local time when SQS answered that it had the message. */
  acceptedAtMs: number
}

export interface RefusedJob {
  job: ClaimedJob
  error: string
}

export interface DispatchOutcome {
  sent: SentJob[]
  refused: RefusedJob[]
}

const MAX_ENTRIES = 10
/** FIFO order holds within a message group, so a group's batches go one after another, on one of these lanes. */
const FIFO_LANES = 8

export class Dispatcher {
  private readonly semaphore: Semaphore
  private readonly lanes = new Map<string, Promise<unknown>>()

  constructor(private readonly options: DispatchOptions) {
    this.semaphore = new Semaphore(options.concurrency)
  }

  async dispatch(jobs: readonly ClaimedJob[]): Promise<DispatchOutcome> {
    const outcome: DispatchOutcome = { sent: [], refused: [] }
    const groups = new Map<string, ClaimedJob[]>()
    for (const job of jobs) {
      if (!Object.hasOwn(this.options.queues, job.queue)) {
        outcome.refused.push({ job, error: `unknown target queue "${job.queue}": it is not in QUEUES` })
        continue
      }
      const lane = isFifoQueue(job.queue) ? `${job.queue}#${hashId(job.groupId ?? job.id) % FIFO_LANES}` : job.queue
      groups.set(lane, [...(groups.get(lane) ?? []), job])
    }
    const sends: Promise<void>[] = []
    for (const [lane, laneJobs] of groups) {
      for (const batch of this.batches(laneJobs)) {
        const send = () => this.semaphore.run(() => this.send(batch, outcome))
        if (isFifoQueue(laneJobs[0]!.queue)) {
          const chained = (this.lanes.get(lane) ?? Promise.resolve()).then(send)
          this.lanes.set(lane, chained)
          sends.push(chained)
        } else {
          sends.push(send())
        }
      }
    }
    await Promise.all(sends)
    return outcome
  }

  /** Consecutive runs of <= 10 entries and <= maxBatchBytes, in claim order. */
  private *batches(jobs: ClaimedJob[]): Generator<{ job: ClaimedJob; body: string }[]> {
    let batch: { job: ClaimedJob; body: string }[] = []
    let bytes = 0
    const now = Date.now()
    for (const job of jobs) {
      const body = messageBody(job, now)
      const size = messageBytes(body, job.id)
      if (batch.length === MAX_ENTRIES || (batch.length > 0 && bytes + size > this.options.maxBatchBytes)) {
        yield batch
        batch = []
        bytes = 0
      }
      batch.push({ job, body })
      bytes += size
    }
    if (batch.length) yield batch
  }

  private async send(batch: { job: ClaimedJob; body: string }[], outcome: DispatchOutcome): Promise<void> {
    const queue = batch[0]!.job.queue
    const fifo = isFifoQueue(queue)
    const entries: SendMessageBatchRequestEntry[] = batch.map(({ job, body }, i) => ({
      Id: `e${i}`,
      MessageBody: body,
      MessageAttributes: { [JOB_ID_ATTRIBUTE]: { DataType: 'String', StringValue: job.id } },
      ...(fifo
        ? { MessageGroupId: job.groupId ?? job.id, MessageDeduplicationId: deduplicationId(job.id, job.version) }
        : {}),
    }))
    try {
      const result = await this.options.sqs.send(
        new SendMessageBatchCommand({ QueueUrl: this.options.queues[queue], Entries: entries }),
      )
      const acceptedAtMs = Date.now()
      const answered = new Set<string>()
      for (const ok of result.Successful ?? []) {
        answered.add(ok.Id!)
        outcome.sent.push({ job: batch[Number(ok.Id!.slice(1))]!.job, acceptedAtMs })
      }
      for (const failed of result.Failed ?? []) {
        answered.add(failed.Id!)
        outcome.refused.push({
          job: batch[Number(failed.Id!.slice(1))]!.job,
          error: `SQS refused the message: ${failed.Code ?? 'error'}: ${failed.Message ?? ''}`.trim(),
        })
      }
      // An entry SQS did not mention was not accepted: never assume success.
      batch.forEach(({ job }, i) => {
        if (!answered.has(`e${i}`)) outcome.refused.push({ job, error: 'SQS did not answer for this entry' })
      })
    } catch (e) {
      const error = `SendMessageBatch failed: ${e instanceof Error ? `${e.name}: ${e.message}` : String(e)}`
      for (const { job } of batch) outcome.refused.push({ job, error })
    }
  }
}
