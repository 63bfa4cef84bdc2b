// Consumers: plain SQS receive loops on the target queue (straight to the local SQS, not through the fault proxy),
// recording every delivery (job id, payload token, SQS message id, SentTimestamp, receive count) before deleting it.
import { sleep } from '../../devkit/sleep'
import { DeleteMessageBatchCommand, ReceiveMessageCommand, type Message, type SQSClient } from '@aws-sdk/client-sqs'
import type { Delivery } from './history'

export interface Consumers {
  deliveries: Delivery[]
  /** Local time of the last delivery recorded. */
  lastAt(): number
  stop(): Promise<void>
}

/** `count` receive loops on each of `queueUrls`. */
export function startConsumers(sqs: SQSClient, queueUrls: readonly string[], count: number): Consumers {
  const deliveries: Delivery[] = []
  let last = 0
  let stopping = false
  const loop = async (queueUrl: string) => {
    while (!stopping) {
      let messages: Message[] = []
      try {
        const r = await sqs.send(
          new ReceiveMessageCommand({
            QueueUrl: queueUrl,
            MaxNumberOfMessages: 10,
            WaitTimeSeconds: 1,
            VisibilityTimeout: 60,
            MessageSystemAttributeNames: [
              'SentTimestamp',
              'ApproximateReceiveCount',
              'MessageGroupId',
              'SequenceNumber',
            ],
          }),
        )
        messages = r.Messages ?? []
      } catch {
        await sleep(200)
        continue
      }
      const receivedAt = Date.now()
      for (const m of messages) deliveries.push(deliveryOf(m, receivedAt))
      if (messages.length) last = receivedAt
      if (messages.length) {
        await sqs
          .send(
            new DeleteMessageBatchCommand({
              QueueUrl: queueUrl,
              Entries: messages.map((m, i) => ({ Id: String(i), ReceiptHandle: m.ReceiptHandle! })),
            }),
          )
          .catch(() => undefined) // not deleted: SQS delivers it again after the visibility timeout (a redelivery)
      }
    }
  }
  const loops = queueUrls.flatMap((url) => Array.from({ length: count }, () => loop(url)))
  return {
    deliveries,
    lastAt: () => last,
    async stop() {
      stopping = true
      await Promise.all(loops)
    },
  }
}

export function deliveryOf(m: Message, receivedAt: number): Delivery {
  const body = JSON.parse(m.Body ?? '{}') as {
    id: string
    runAt: string
    createdAt?: string
    payload?: { t?: string }
    scheduleId?: string
    occurrenceAt?: string
  }
  return {
    jobId: body.id,
    token: body.payload?.t,
    messageId: m.MessageId!,
    sentAt: Number(m.Attributes?.SentTimestamp),
    receivedAt,
    receiveCount: Number(m.Attributes?.ApproximateReceiveCount ?? 1),
    runAtMs: Date.parse(body.runAt),
    ...(body.createdAt ? { createdAtMs: Date.parse(body.createdAt) } : {}),
    ...(body.scheduleId ? { scheduleId: body.scheduleId, occurrenceAtMs: Date.parse(body.occurrenceAt!) } : {}),
    ...(m.Attributes?.MessageGroupId
      ? { groupId: m.Attributes.MessageGroupId, sequence: m.Attributes.SequenceNumber }
      : {}),
  }
}
