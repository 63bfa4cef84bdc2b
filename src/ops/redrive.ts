// DLQ redrive: bring messages that business Lambdas failed on (maxReceiveCount times) back, either into the delay
// queue (scheduled again, after a chosen delay) or straight into their target queue. Run by an operator
// (src/ops/sdq.ts) with credentials that may read the DLQ; the API has no SQS rights by design.
import {
  DeleteMessageCommand,
  ReceiveMessageCommand,
  SendMessageCommand,
  type Message,
  type SQSClient,
} from '@aws-sdk/client-sqs'
import { isFifoQueue } from '../config'
import { deduplicationId, JOB_ID_ATTRIBUTE, type JobMessage } from '../sqs/envelope'
import { JobExistsError } from '../errors'
import type { JobStore } from '../store/job-store'

export interface RedriveOptions {
  sqs: SQSClient
  dlqUrl: string
  /** "schedule": back into the delay queue after `delayMs`; "direct": straight to the job's target queue. */
  mode: { kind: 'schedule'; store: JobStore; delayMs: number } | { kind: 'direct'; queues: Record<string, string> }
  /** Stop after this many messages (default: until the DLQ is empty). */
  max?: number
}

export interface RedriveReport {
  moved: number
  /** Left in the DLQ: not a job message, or (schedule mode) a pending job already has the id. */
  skipped: { messageId: string; reason: string }[]
}

export async function redrive(options: RedriveOptions): Promise<RedriveReport> {
  const report: RedriveReport = { moved: 0, skipped: [] }
  const max = options.max ?? Infinity
  let emptyPolls = 0
  while (report.moved + report.skipped.length < max && emptyPolls < 2) {
    const { Messages = [] } = await options.sqs.send(
      new ReceiveMessageCommand({
        QueueUrl: options.dlqUrl,
        MaxNumberOfMessages: Math.min(10, max - report.moved - report.skipped.length),
        WaitTimeSeconds: 1,
        // Skipped messages stay invisible for the rest of this run, so one run never loops over them.
        VisibilityTimeout: 300,
        MessageAttributeNames: ['All'],
        MessageSystemAttributeNames: ['MessageGroupId'],
      }),
    )
    emptyPolls = Messages.length ? 0 : emptyPolls + 1
    for (const message of Messages) {
      const reason = await moveOne(options, message)
      if (reason) report.skipped.push({ messageId: message.MessageId!, reason })
      else {
        await options.sqs.send(
          new DeleteMessageCommand({ QueueUrl: options.dlqUrl, ReceiptHandle: message.ReceiptHandle! }),
        )
        report.moved++
      }
    }
  }
  return report
}

/** Moves one message; returns why it was skipped, or undefined when it was moved. */
async function moveOne(options: RedriveOptions, message: Message): Promise<string | undefined> {
  let job: JobMessage
  try {
    job = JSON.parse(message.Body ?? '') as JobMessage
    if (typeof job?.id !== 'string' || typeof job.queue !== 'string' || !('payload' in job)) throw new Error()
  } catch {
    return 'not a job message (no id, queue and payload)'
  }
  if (options.mode.kind === 'schedule') {
    try {
      await options.mode.store.enqueue({
        id: job.id,
        queue: job.queue,
        payloadJson: JSON.stringify(job.payload),
        schedule: { delayMs: options.mode.delayMs },
      })
    } catch (e) {
      if (e instanceof JobExistsError) return `a pending job has the id "${job.id}" already`
      throw e
    }
    return undefined
  }
  const targetUrl = Object.hasOwn(options.mode.queues, job.queue) ? options.mode.queues[job.queue] : undefined
  if (!targetUrl) return `unknown target queue "${job.queue}": it is not in QUEUES`
  const fifo = isFifoQueue(job.queue)
  await options.sqs.send(
    new SendMessageCommand({
      QueueUrl: targetUrl,
      MessageBody: message.Body!,
      MessageAttributes: { [JOB_ID_ATTRIBUTE]: { DataType: 'String', StringValue: job.id } },
      ...(fifo
        ? {
            MessageGroupId: message.Attributes?.MessageGroupId ?? job.id,
            // A redrive is a new delivery on purpose: it must not be swallowed as a duplicate of the first one.
            MessageDeduplicationId: deduplicationId(`${job.id}\nredrive\n${message.MessageId}`, 0),
          }
        : {}),
    }),
  )
  return undefined
}
