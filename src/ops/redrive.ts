// DLQ redrive: bring messages that business Lambdas failed on (maxReceiveCount times) back, either into the delay
// queue (scheduled again, after a chosen delay) or straight into their target queue. Run by an operator
// (src/ops/sdq.ts) with credentials that may read the DLQ; the API has no SQS rights by design.
//
// A redrive stays in its lane: the target is the queue whose DLQ it reads (src/ops/dlq-target.ts), not whatever
// queue a message body names, and every message passes the API's own job validation (src/direct/validation.ts)
// before it goes anywhere. What fails is left in the DLQ and reported, with the reason.
import {
  DeleteMessageCommand,
  ReceiveMessageCommand,
  SendMessageCommand,
  type Message,
  type SQSClient,
} from '@aws-sdk/client-sqs'
import { isFifoQueue } from '../queues'
import { deduplicationId, JOB_ID_ATTRIBUTE } from '../sqs/envelope'
import { DelayQueueError, IdempotencyKeyReusedError, JobExistsError } from '../errors'
import type { JobStore, NewJob } from '../store/job-store'
import { validateJobId, validateJobRef } from '../direct/id-rules'
import { validateJob, type JobValidationConfig } from '../direct/validation'
import { parseOccurrenceId } from '../recurrence/occurrence-id'
import { dlqNameOf, sameQueue, targetOfDlq } from './dlq-target'

export interface RedriveOptions {
  sqs: SQSClient
  dlqUrl: string
  /** QUEUES and the API's limits: the rules every redriven message is held to. */
  config: JobValidationConfig
  /**
   * The target queue, by its name in QUEUES. Default: the queue whose DLQ `dlqUrl` is. Naming it also moves
   * messages whose body names another queue (they are refused otherwise).
   */
  queue?: string
  /** "schedule": back into the delay queue after `delayMs`; "direct": straight to the target queue. */
  mode: { kind: 'schedule'; store: JobStore; delayMs: number } | { kind: 'direct' }
  /** Stop after this many messages (default: until the DLQ is empty). */
  max?: number
  /** How long each receive waits for a message (default 1 s): the run ends after two empty receives. */
  waitSeconds?: number
}

export interface SkippedMessage {
  messageId: string
  /** The job id, when the body has one. */
  jobId?: string
  reason: string
}

export interface RedriveReport {
  /** The target queue (its name in QUEUES). */
  queue: string
  moved: number
  /** Left in the DLQ (visible again after 5 minutes): what was refused, and why. */
  skipped: SkippedMessage[]
}

/** The redrive cannot start: no target queue for this DLQ, or the DLQ is the target queue itself. */
export class RedriveTargetError extends DelayQueueError {
  readonly code = 'RedriveTarget'
}

export async function redrive(options: RedriveOptions): Promise<RedriveReport> {
  const queue = targetQueue(options)
  const report: RedriveReport = { queue, moved: 0, skipped: [] }
  const max = options.max ?? Infinity
  let emptyPolls = 0
  while (report.moved + report.skipped.length < max && emptyPolls < 2) {
    const { Messages = [] } = await options.sqs.send(
      new ReceiveMessageCommand({
        QueueUrl: options.dlqUrl,
        MaxNumberOfMessages: Math.min(10, max - report.moved - report.skipped.length),
        WaitTimeSeconds: options.waitSeconds ?? 1,
        // Skipped messages stay invisible for the rest of this run, so one run never loops over them.
        VisibilityTimeout: 300,
        MessageAttributeNames: ['All'],
        MessageSystemAttributeNames: ['MessageGroupId'],
      }),
    )
    emptyPolls = Messages.length ? 0 : emptyPolls + 1
    for (const message of Messages) {
      const refusal = await moveOne(options, queue, message)
      if (refusal) report.skipped.push({ messageId: message.MessageId!, ...refusal })
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

/** The queue this redrive sends to: named with `queue`, else the one whose DLQ is read. */
function targetQueue({ config, queue, dlqUrl }: RedriveOptions): string {
  const known = Object.keys(config.queues)
    .map((q) => JSON.stringify(q))
    .join(', ')
  if (queue !== undefined && !Object.hasOwn(config.queues, queue)) {
    throw new RedriveTargetError(`--queue "${queue}" is not in QUEUES (${known})`)
  }
  const itself = Object.keys(config.queues).find((name) => sameQueue(dlqUrl, config.queues[name]!))
  // Reading a target queue and sending back into it would loop until --max.
  if (itself !== undefined) throw new RedriveTargetError(`${dlqUrl} is the target queue "${itself}" itself, not a DLQ`)
  const target = queue ?? targetOfDlq(dlqUrl, config.queues)
  if (target === undefined) {
    throw new RedriveTargetError(
      `${dlqUrl} is not the DLQ of a queue in QUEUES (${known}; a DLQ is named after its queue: ` +
        `"${dlqNameOf('orders')}" for "orders"): name the target with --queue`,
    )
  }
  return target
}

type Refusal = Omit<SkippedMessage, 'messageId'>

/** Moves one message; returns why it was refused, or undefined when it was moved. */
async function moveOne(options: RedriveOptions, queue: string, message: Message): Promise<Refusal | undefined> {
  let body: Record<string, unknown>
  try {
    body = JSON.parse(message.Body ?? '') as Record<string, unknown>
    if (typeof body?.id !== 'string' || typeof body.queue !== 'string' || !('payload' in body)) throw new Error()
  } catch {
    return { reason: 'not a job message (no id, queue and payload)' }
  }
  const jobId = body.id as string
  if (body.queue !== queue && options.queue === undefined) {
    return {
      jobId,
      reason: `names queue "${String(body.queue)}" but this is the DLQ of "${queue}": --queue moves it explicitly`,
    }
  }
  const fifo = isFifoQueue(queue)
  const groupId = fifo ? message.Attributes?.MessageGroupId : undefined
  let job: NewJob
  try {
    job = validated(options, queue, body, groupId)
  } catch (e) {
    if (e instanceof DelayQueueError) return { jobId, reason: `refused by the job rules: ${e.message}` }
    throw e
  }
  if (options.mode.kind === 'schedule') {
    // A write token of this DLQ message: a run that stopped after this write and before its DeleteMessage leaves the
    // message to a later run, whose write is then a replay of this one (nothing new scheduled, also once the job was
    // sent, while its receipt is kept) and deletes it; without, that run scheduled the job a second time.
    job.writeToken = `redrive-${message.MessageId!.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 56)}`
    try {
      await options.mode.store.enqueue(job)
    } catch (e) {
      if (e instanceof JobExistsError) return { jobId, reason: `a pending job has the id "${jobId}" already` }
      if (e instanceof IdempotencyKeyReusedError)
        return { jobId, reason: 'an earlier redrive moved this message with other options (--delay, --queue)' }
      throw e
    }
    return undefined
  }
  await options.sqs.send(
    new SendMessageCommand({
      QueueUrl: options.config.queues[queue]!,
      // The body as the scanner wrote it; rewritten only when --queue moves it to another queue than it names.
      MessageBody: body.queue === queue ? message.Body! : JSON.stringify({ ...body, queue }),
      MessageAttributes: { [JOB_ID_ATTRIBUTE]: { DataType: 'String', StringValue: jobId } },
      ...(fifo
        ? {
            MessageGroupId: job.groupId ?? jobId,
            // A redrive is a new delivery on purpose: it must not be swallowed as a duplicate of the first one. A
            // second run over the same DLQ message (the first crashed before deleting it) is the same delivery.
            MessageDeduplicationId: deduplicationId(`${jobId}\nredrive\n${message.MessageId}`, 0),
          }
        : {}),
    }),
  )
  return undefined
}

/**
 * The message as the API would take it: ValidationError / PayloadTooLargeError otherwise. Scheduled again, it must
 * be an ordinary job id; sent directly, an occurrence of a recurring schedule ("<schedule>@<ms>") passes as it is.
 */
function validated(
  options: RedriveOptions,
  queue: string,
  body: Record<string, unknown>,
  groupId: string | undefined,
): NewJob {
  const id = body.id as string
  if (options.mode.kind === 'direct') validateJobRef(id)
  else if (parseOccurrenceId(id)) {
    throw new RedriveOccurrenceError(id)
  } else validateJobId(id)
  const input = {
    queue,
    payload: body.payload,
    // A FIFO job scheduled again is a new incarnation (a new creation time): its deduplication id is new too
    // (src/sqs/envelope.ts), so SQS does not swallow it within 5 minutes of the first delivery.
    ...(options.mode.kind === 'schedule' ? { delayMs: options.mode.delayMs } : {}),
    // A group id equal to the job id is SQS's default for the job: leave it out, as the job had it.
    ...(groupId !== undefined && groupId !== id ? { groupId } : {}),
    // The job's tags and flow key ride in its message (src/sqs/envelope.ts): it comes back with them, so a cancel by
    // tag finds it and its key's rate and pause hold it. Held to the enqueue rules like every other field.
    ...(body.tags !== undefined ? { tags: body.tags } : {}),
    ...(body.flowKey !== undefined ? { flowKey: body.flowKey } : {}),
  }
  const job = validateJob(input, options.config, { id })
  // Scheduled again, it is the same job to its owner: it keeps the creation time its message carries (the scanner
  // writes it), as a new incarnation all the same (lua/enqueue.lua: a FIFO deduplication id of its own).
  const createdAtMs = typeof body.createdAt === 'string' ? Date.parse(body.createdAt) : Number.NaN
  if (options.mode.kind === 'schedule' && Number.isSafeInteger(createdAtMs) && createdAtMs > 0)
    job.createdAtMs = createdAtMs
  return job
}

/** An occurrence re-created as a job would run its schedule's series twice: it goes back with --direct only. */
class RedriveOccurrenceError extends DelayQueueError {
  readonly code = 'ValidationError'
  constructor(id: string) {
    super(`id: "${id}" is an occurrence of a recurring schedule: redrive it with --direct`)
  }
}
