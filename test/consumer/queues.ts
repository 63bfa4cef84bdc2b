// Shared scenario helpers for the consumer suites, fauxqs side: uniquely named queues (with DLQs), messages exactly as
// the scanner sends them, and Lambda-shaped events received from or built beside them. useConsumerFixtures() in
// fixtures.ts closes the client.
import { randomUUID } from 'node:crypto'
import { DeleteMessageCommand, ReceiveMessageCommand, SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs'
import type { SQSEvent } from 'aws-lambda'
import { expect, inject } from 'vitest'
import { localCredentials } from '../../local/sqs-endpoint'
import { createQueue } from '../support/sqs'
import { toRecord } from '../../tools/sdq-poll/sqs-poller'
import { JOB_ID_ATTRIBUTE, messageBody } from '../../src/sqs/envelope'

export const sqsEndpoint = inject('sqsEndpoint')
export const sqs = new SQSClient({ endpoint: sqsEndpoint, region: 'us-east-1', credentials: localCredentials })

/** A queue for the consumer suites: a receive hides a message for 1 s unless `attributes` say otherwise. */
export function consumerQueue(name: string, attributes: Record<string, string> = {}) {
  return createQueue(sqs, name, { VisibilityTimeout: '1', ...attributes })
}

/** A target queue whose messages move to a DLQ after `maxReceiveCount` receives. */
export async function queueWithDlq(name: string, maxReceiveCount: number, attributes: Record<string, string> = {}) {
  const fifo = name.endsWith('.fifo')
  const dlq = await consumerQueue(fifo ? name.replace(/\.fifo$/, '-dlq.fifo') : `${name}-dlq`, attributes)
  const queue = await consumerQueue(name, {
    ...attributes,
    RedrivePolicy: JSON.stringify({ deadLetterTargetArn: dlq.arn, maxReceiveCount }),
  })
  return { ...queue, dlq }
}

/** A message exactly as the scanner sends it (src/sqs/envelope.ts). */
export async function sendJob(queueUrl: string, id: string, payload: unknown, groupId?: string): Promise<void> {
  await sendRaw(queueUrl, jobBody(id, payload), id, groupId)
}

export function jobBody(id: string, payload: unknown, dueMs = Date.now() - 25): string {
  return messageBody(
    { id, queue: 'orders', payloadJson: JSON.stringify(payload), dueMs, createdAtMs: dueMs - 1000 },
    dueMs,
  )
}

export async function sendRaw(queueUrl: string, body: string, jobId: string, groupId?: string): Promise<void> {
  await sqs.send(
    new SendMessageCommand({
      QueueUrl: queueUrl,
      MessageBody: body,
      MessageAttributes: { [JOB_ID_ATTRIBUTE]: { DataType: 'String', StringValue: jobId } },
      ...(groupId ? { MessageGroupId: groupId, MessageDeduplicationId: randomUUID() } : {}),
    }),
  )
}

/**
 * A first delivery of job `jobId` (payload {}) as Lambda hands it over, built here instead of received: for batches
 * SQS would not deliver as such, and handlers that never reach a queue. Message id `m-<key>`, receipt `rh-<key>`.
 */
export function handRecord(key: string, jobId: string, arn: string, attributes: Record<string, string> = {}) {
  return toRecord(
    {
      MessageId: `m-${key}`,
      ReceiptHandle: `rh-${key}`,
      Body: jobBody(jobId, {}),
      Attributes: { ApproximateReceiveCount: '1', ...attributes },
    },
    arn,
  )
}

/** Receives `count` messages and shapes them as Lambda would (for driving the handler directly). */
export async function receiveEvent(queueUrl: string, queueArn: string, count: number): Promise<SQSEvent> {
  const records: SQSEvent['Records'] = []
  for (let tries = 0; records.length < count && tries < 10; tries++) {
    const out = await sqs.send(
      new ReceiveMessageCommand({
        QueueUrl: queueUrl,
        MaxNumberOfMessages: Math.min(10, count - records.length),
        WaitTimeSeconds: 1,
        MessageSystemAttributeNames: ['All'],
        MessageAttributeNames: ['All'],
      }),
    )
    for (const m of out.Messages ?? []) records.push(toRecord(m, queueArn))
  }
  expect(records).toHaveLength(count)
  return { Records: records }
}

export async function receiveNow(queueUrl: string, waitTimeSeconds = 0) {
  const out = await sqs.send(
    new ReceiveMessageCommand({
      QueueUrl: queueUrl,
      MaxNumberOfMessages: 10,
      WaitTimeSeconds: waitTimeSeconds,
      MessageSystemAttributeNames: ['All'],
      VisibilityTimeout: 30,
    }),
  )
  return out.Messages ?? []
}

/** Deletes a message as the event source mapping does for a record that succeeded. */
export async function deleteRecord(queueUrl: string, receiptHandle: string): Promise<void> {
  await sqs.send(new DeleteMessageCommand({ QueueUrl: queueUrl, ReceiptHandle: receiptHandle }))
}
