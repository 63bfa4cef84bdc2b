// The consumer side, for the dashboard: each target queue's DLQ (messages a consumer failed on maxReceiveCount
// times), its depth, a peek at a few messages, and a redrive (the code of `sdq redrive`). Not the dead set: that
// holds jobs SQS refused at dispatch, which never reached a consumer.
//
// The only part of the dashboard that calls AWS. It does so only when SQS access is configured (SQS_ENDPOINT, or AWS
// credentials in the environment): over a tunnel without credentials the panel says so instead of failing, and the
// SDK never goes looking for credentials elsewhere.
// A depth read (GET) asks for queue attributes only: a GET changes nothing, so a page of another site that makes the
// browser load it (an <img>) cannot touch the DLQs. A peek is a receive, which adds one to each peeked message's receive
// count: it is a POST (an action: same origin, JSON), made by the panel's button only, never by the 2 s refresh. A peek
// gives the messages back at once (visibility 0), so the DLQ's consumer and a redrive see them as before.
import {
  ChangeMessageVisibilityBatchCommand,
  GetQueueAttributesCommand,
  type Message,
  ReceiveMessageCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs'
import type { Config } from '../../config'
import { createSqsClient } from '../../sqs/sqs-client'
import { JOB_ID_ATTRIBUTE } from '../../sqs/envelope'
import type { JobStore } from '../../store/job-store'
import { dlqNameOf } from '../dlq-target'
import { redrive, type RedriveReport } from '../redrive'
import { QueueNotFoundError } from '../../errors'
import { isoTime } from '../../shared/iso-time'

/** Messages peeked per DLQ. */
const PEEK = 5
/** Body characters shown per peeked message. */
const BODY_PREVIEW = 200
/**
 * How long a peeked message is held before it is given back. Not 0 at the receive: fauxqs keeps a message received with
 * visibility 0 out of the depth (and of a redrive's first receive) until some later receive puts it back. Given back
 * explicitly right after; if that fails, it is visible again after this many seconds.
 */
const PEEK_HOLD_SECONDS = 30

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
  /** Messages in the DLQ: ApproximateNumberOfMessages (visible) plus ...NotVisible (being received, or peeked). */
  depth: number
  /** Of those, the ones being received now. */
  inFlight: number
  /** The oldest SentTimestamp among the peeked messages (SQS keeps a message's first send time); null without a peek. */
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
    /** Default: one built from the config when first needed. */
    sqs?: SQSClient,
  ) {
    this.sqs = sqs
  }

  /** Each DLQ's depth, from its attributes: no message is received. */
  read(): Promise<DlqReport> {
    return this.readAll(false)
  }

  /** The depths and a peek at the first messages of each DLQ (a receive: each peeked message's count goes up). */
  peek(): Promise<DlqReport> {
    return this.readAll(true)
  }

  /**
   * Moves the DLQ's messages back into the delay queue, due now: what `sdq redrive --dlq-url` does, with its check
   * (a message whose body names another queue stays in the DLQ, listed as skipped). An unknown queue is a 404.
   */
  async redrive(queue: string): Promise<RedriveReport> {
    const url = Object.hasOwn(this.config.queues, queue) ? this.config.queues[queue] : undefined
    if (!url) throw new QueueNotFoundError(queue, Object.keys(this.config.queues))
    const reason = noSqsAccess(this.config)
    if (reason) throw new Error(reason)
    // No `queue` option: naming it would move bodies that name another queue too (redrive.ts), which only an
    // operator's explicit --queue may do.
    return redrive({
      sqs: this.client(),
      dlqUrl: dlqUrlOf(url),
      config: this.config,
      mode: { kind: 'schedule', store: this.store, delayMs: 0 },
    })
  }

  private async readAll(peek: boolean): Promise<DlqReport> {
    const reason = noSqsAccess(this.config)
    if (reason) return { available: false, reason }
    const dlqs = await Promise.all(
      Object.entries(this.config.queues).map(([queue, url]) => this.readOne(queue, url, peek)),
    )
    return { available: true, dlqs }
  }

  close(): void {
    this.sqs?.destroy()
  }

  private client(): SQSClient {
    this.sqs ??= createSqsClient(this.config)
    return this.sqs
  }

  private async readOne(queue: string, queueUrl: string, peek: boolean): Promise<DlqView> {
    const dlqUrl = dlqUrlOf(queueUrl)
    const view: DlqView = { queue, dlqUrl, depth: 0, inFlight: 0, oldestSentAt: null, messages: [] }
    try {
      const attrs = await this.client().send(
        new GetQueueAttributesCommand({
          QueueUrl: dlqUrl,
          AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'],
        }),
      )
      view.inFlight = Number(attrs.Attributes?.ApproximateNumberOfMessagesNotVisible ?? 0)
      view.depth = Number(attrs.Attributes?.ApproximateNumberOfMessages ?? 0) + view.inFlight
      if (peek && view.depth > view.inFlight) {
        const { Messages = [] } = await this.client().send(
          new ReceiveMessageCommand({
            QueueUrl: dlqUrl,
            MaxNumberOfMessages: PEEK,
            VisibilityTimeout: PEEK_HOLD_SECONDS,
            WaitTimeSeconds: 0,
            MessageAttributeNames: [JOB_ID_ATTRIBUTE],
            MessageSystemAttributeNames: ['ApproximateReceiveCount', 'SentTimestamp'],
          }),
        )
        const kept = await this.giveBack(dlqUrl, Messages)
        // Said, not hidden: those stay out of the depth's visible part and of a redrive until the hold ends.
        if (kept) view.error = `${kept} peeked message(s) not given back: hidden for up to ${PEEK_HOLD_SECONDS} s`
        view.messages = Messages.map(peeked)
        const oldest = Math.min(...view.messages.map((m) => Date.parse(m.sentAt)))
        view.oldestSentAt = Number.isFinite(oldest) ? isoTime(oldest) : null
      }
    } catch (e) {
      view.error = e instanceof Error ? `${e.name}: ${e.message}` : String(e)
    }
    return view
  }

  /**
   * Peeked messages visible again at once, for the DLQ's consumer and a redrive; answers how many SQS did not take
   * back (visible again when the hold ends).
   */
  private async giveBack(dlqUrl: string, messages: Message[]): Promise<number> {
    if (messages.length === 0) return 0
    const { Failed = [] } = await this.client().send(
      new ChangeMessageVisibilityBatchCommand({
        QueueUrl: dlqUrl,
        Entries: messages.map((m, i) => ({ Id: String(i), ReceiptHandle: m.ReceiptHandle!, VisibilityTimeout: 0 })),
      }),
    )
    return Failed.length
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
