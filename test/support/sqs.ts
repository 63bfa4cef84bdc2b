// Real SQS (fauxqs) helpers for tests: create queues with unique names, and read back everything that arrived.
import {
  CreateQueueCommand,
  DeleteMessageBatchCommand,
  GetQueueAttributesCommand,
  ReceiveMessageCommand,
  SQSClient,
  type Message,
} from '@aws-sdk/client-sqs'
import { randomBytes } from 'node:crypto'
import { inject } from 'vitest'
import { localCredentials } from '../../local/sqs-endpoint'
import { dlqNameOf } from '../../src/ops/dlq-target'

export function sqsClient(endpoint = inject('sqsEndpoint')): SQSClient {
  return new SQSClient({ endpoint, region: 'us-east-1', credentials: localCredentials, maxAttempts: 1 })
}

/** A queue named `base` plus a random suffix (".fifo" kept last, FIFO then), visibility timeout 600 s unless set. */
export async function createQueue(sqs: SQSClient, base: string, attributes: Record<string, string> = {}) {
  const fifo = base.endsWith('.fifo')
  const name = `${base.replace(/\.fifo$/, '')}-${randomBytes(3).toString('hex')}${fifo ? '.fifo' : ''}`
  const { QueueUrl } = await sqs.send(
    new CreateQueueCommand({
      QueueName: name,
      Attributes: { VisibilityTimeout: '600', ...(fifo ? { FifoQueue: 'true' } : {}), ...attributes },
    }),
  )
  const a = await sqs.send(new GetQueueAttributesCommand({ QueueUrl, AttributeNames: ['QueueArn'] }))
  return { name, url: QueueUrl!, arn: a.Attributes!.QueueArn! }
}

export async function approximateCount(sqs: SQSClient, url: string): Promise<number> {
  const r = await sqs.send(
    new GetQueueAttributesCommand({
      QueueUrl: url,
      AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'],
    }),
  )
  return Number(r.Attributes!.ApproximateNumberOfMessages) + Number(r.Attributes!.ApproximateNumberOfMessagesNotVisible)
}

/** One poll that does not wait: up to ten messages with all their attributes, hidden for `visibilityS`. */
function receiveNow(sqs: SQSClient, url: string, visibilityS: number) {
  return sqs.send(
    new ReceiveMessageCommand({
      QueueUrl: url,
      MaxNumberOfMessages: 10,
      WaitTimeSeconds: 0,
      VisibilityTimeout: visibilityS,
      MessageAttributeNames: ['All'],
      MessageSystemAttributeNames: ['All'],
    }),
  )
}

/**
 * Receives every message currently in the queue (long visibility timeout, so each is seen once), with several
 * receivers in parallel. Stops after two empty polls in a row for every receiver.
 */
export async function receiveAll(sqs: SQSClient, url: string, receivers = 4): Promise<Message[]> {
  const all: Message[] = []
  await Promise.all(
    Array.from({ length: receivers }, async () => {
      let empty = 0
      while (empty < 2) {
        const r = await receiveNow(sqs, url, 3600)
        if (!r.Messages?.length) empty++
        else {
          empty = 0
          all.push(...r.Messages)
        }
      }
    }),
  )
  return all
}

/** Job ids of messages, with how often each arrived. */
export function countIds(messages: Message[]): Map<string, number> {
  const counts = new Map<string, number>()
  for (const m of messages) {
    const id = (JSON.parse(m.Body!) as { id: string }).id
    counts.set(id, (counts.get(id) ?? 0) + 1)
  }
  return counts
}

/**
 * Every message of a FIFO queue in the order SQS hands them out, each deleted once read: a FIFO queue holds back a
 * group's next message while one of it is in flight, so receiveAll would see only the first of each group.
 */
export async function drainInOrder(sqs: SQSClient, url: string): Promise<Message[]> {
  const all: Message[] = []
  let empty = 0
  while (empty < 2) {
    const r = await receiveNow(sqs, url, 60)
    if (!r.Messages?.length) {
      empty++
      continue
    }
    empty = 0
    all.push(...r.Messages)
    await sqs.send(
      new DeleteMessageBatchCommand({
        QueueUrl: url,
        Entries: r.Messages.map((m, i) => ({ Id: String(i), ReceiptHandle: m.ReceiptHandle! })),
      }),
    )
  }
  return all
}

/** A target queue and its DLQ, named as the stack names them ("<name>-dlq", "-dlq" before ".fifo"). */
export async function createTargetWithDlq(sqs: SQSClient, base: string) {
  const target = await createQueue(sqs, base)
  const dlqName = dlqNameOf(target.name)
  const { QueueUrl } = await sqs.send(
    new CreateQueueCommand({
      QueueName: dlqName,
      Attributes: { VisibilityTimeout: '600', ...(target.name.endsWith('.fifo') ? { FifoQueue: 'true' } : {}) },
    }),
  )
  return { target, dlq: { name: dlqName, url: QueueUrl! } }
}
