// The consumer side, for the dashboard: each target queue's DLQ (messages a consumer failed on maxReceiveCount
// times), its depth, a peek at a few messages, and a redrive (the code of `sdq redrive`). Not the dead set: that
// holds jobs SQS refused at dispatch, which never reached a consumer.
//
// The only part of the dashboard that calls AWS. It does so only when SQS access is configured (SQS_ENDPOINT, or AWS
// credentials in the environment): over a tunnel without credentials the panel says so instead of failing, and the
// SDK never goes looking for credentials elsewhere. Read on demand (the panel's button), never by the 2 s refresh: a
// peek is a receive, and adds one to each peeked message's receive count.
import { GetQueueAttributesCommand, type Message, ReceiveMessageCommand, type SQSClient } from '@aws-sdk/client-sqs'
import type { Config } from '../../config'
import { createSqsClient } from '../../sqs/sqs-client'
import { JOB_ID_ATTRIBUTE } from '../../sqs/envelope'
import type { JobStore } from '../../store/job-store'
import { dlqNameOf } from '../dlq-target'
import { redrive, type RedriveReport } from '../redrive'
import { isoTime } from '../../iso-time'

/** Messages peeked per DLQ. */
const PEEK = 5
/** Body characters shown per peeked message. */
const BODY_PREVIEW = 200

export interface DlqMessage {
  messageId: string
  jobId?: string
  /** SQS's ApproximateReceiveCount: the deliveries to the consumer before it moved, and the peeks since. */
  receives: number
  sentAt: string
  bodyPreview: string
}

export interface DlqView {
  queue: string
  dlqUrl: string
  /** ApproximateNumberOfMessages (visible) and ...NotVisible (being received). */
  depth: number
  inFlight: number
  /** The oldest SentTimestamp among the peeked messages (SQS keeps a message's first send time). */
  oldestSentAt: string | null
  messages: DlqMessage[]
  error?: string
}

export type DlqReport = { available: false; reason: string } | { available: true; dlqs: DlqView[] }

/** Why the dashboard has no SQS access, or null when it has. */
export function noSqsAccess(config: Pick<Config, 'sqsEndpoint'>, env = process.env): string | null {
  if (config.sqsEndpoint) return null
  if (
    env.AWS_ACCESS_KEY_ID ||
    env.AWS_PROFILE ||
    env.AWS_WEB_IDENTITY_TOKEN_FILE ||
    env.AWS_CONTAINER_CREDENTIALS_FULL_URI
  ) {
    return null
  }
  return 'no SQS access configured (no SQS_ENDPOINT, no AWS credentials in the environment): the dashboard reads Redis only'
}

/** The DLQ URL of a target queue URL: the stack names it after the queue (src/ops/dlq-target.ts). */
export function dlqUrlOf(queueUrl: string): string {
  const at = queueUrl.lastIndexOf('/')
  return `${queueUrl.slice(0, at + 1)}${dlqNameOf(queueUrl.slice(at + 1))}`
}

export class DlqReader {
  private sqs?: SQSClient

  constructor(
    private readonly config: Config,
    private readonly store: JobStore,
  ) {}

  async read(): Promise<DlqReport> {
    const reason = noSqsAccess(this.config)
    if (reason) return { available: false, reason }
    const dlqs = await Promise.all(Object.entries(this.config.queues).map(([queue, url]) => this.readOne(queue, url)))
    return { available: true, dlqs }
  }

  /** Moves the DLQ's messages back into the delay queue, due now: what `sdq redrive --dlq-url` does. */
  async redrive(queue: string): Promise<RedriveReport> {
    const reason = noSqsAccess(this.config)
    if (reason) throw new Error(reason)
    const url = this.config.queues[queue]
    if (!url || !Object.hasOwn(this.config.queues, queue)) throw new Error(`no target queue ${JSON.stringify(queue)}`)
    return redrive({
      sqs: this.client(),
      dlqUrl: dlqUrlOf(url),
      config: this.config,
      queue,
      mode: { kind: 'schedule', store: this.store, delayMs: 0 },
    })
  }

  close(): void {
    this.sqs?.destroy()
  }

  private client(): SQSClient {
    this.sqs ??= createSqsClient(this.config)
    return this.sqs
  }

  private async readOne(queue: string, queueUrl: string): Promise<DlqView> {
    const dlqUrl = dlqUrlOf(queueUrl)
    const view: DlqView = { queue, dlqUrl, depth: 0, inFlight: 0, oldestSentAt: null, messages: [] }
    try {
      const attrs = await this.client().send(
        new GetQueueAttributesCommand({
          QueueUrl: dlqUrl,
          AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'],
        }),
      )
      view.depth = Number(attrs.Attributes?.ApproximateNumberOfMessages ?? 0)
      view.inFlight = Number(attrs.Attributes?.ApproximateNumberOfMessagesNotVisible ?? 0)
      if (view.depth > 0) {
        // Visibility 0: the peeked messages stay visible, for the consumer of the DLQ or a redrive.
        const { Messages = [] } = await this.client().send(
          new ReceiveMessageCommand({
            QueueUrl: dlqUrl,
            MaxNumberOfMessages: PEEK,
            VisibilityTimeout: 0,
            WaitTimeSeconds: 0,
            MessageAttributeNames: [JOB_ID_ATTRIBUTE],
            MessageSystemAttributeNames: ['ApproximateReceiveCount', 'SentTimestamp'],
          }),
        )
        view.messages = Messages.map(peeked)
        const oldest = Math.min(...view.messages.map((m) => Date.parse(m.sentAt)))
        view.oldestSentAt = Number.isFinite(oldest) ? isoTime(oldest) : null
      }
    } catch (e) {
      view.error = e instanceof Error ? `${e.name}: ${e.message}` : String(e)
    }
    return view
  }
}

function peeked(m: Message): DlqMessage {
  const jobId = m.MessageAttributes?.[JOB_ID_ATTRIBUTE]?.StringValue
  const body = m.Body ?? ''
  return {
    messageId: m.MessageId ?? '',
    ...(jobId ? { jobId } : {}),
    receives: Number(m.Attributes?.ApproximateReceiveCount ?? 0),
    sentAt: isoTime(Number(m.Attributes?.SentTimestamp ?? 0)),
    bodyPreview: body.length > BODY_PREVIEW ? `${body.slice(0, BODY_PREVIEW)}…` : body,
  }
}
