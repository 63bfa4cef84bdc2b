// Shared scenario helpers for the consumer suites: uniquely named fauxqs queues (with DLQs), messages exactly as the
// scanner sends them, Lambda-shaped events and contexts, and the local event source mapping.
import { randomUUID } from 'node:crypto'
import { createServer, type Socket } from 'node:net'
import { setTimeout as sleep } from 'node:timers/promises'
import { Logger } from '@aws-lambda-powertools/logger'
import {
  CreateQueueCommand,
  DeleteMessageCommand,
  GetQueueAttributesCommand,
  ReceiveMessageCommand,
  SendMessageCommand,
  SQSClient,
} from '@aws-sdk/client-sqs'
import type { Context, SQSBatchResponse, SQSEvent } from 'aws-lambda'
import { expect, inject, vi } from 'vitest'
import { localCredentials } from '../../local/sqs-endpoint'
import { startSqsPoller, toRecord, type SqsPoller } from '../../tools/sdq-poll/sqs-poller'
import { eventually } from '../support/eventually'
import { lambdaContext as sharedLambdaContext } from '../support/lambda'
import type { JobHandlerOptions } from '../../src/consumer'
import { JOB_ID_ATTRIBUTE, messageBody } from '../../src/sqs/envelope'

export const sqsEndpoint = inject('sqsEndpoint')
export const sqs = new SQSClient({ endpoint: sqsEndpoint, region: 'us-east-1', credentials: localCredentials })
const silent = new Logger({ logLevel: 'SILENT' })
const pollers: SqsPoller[] = []

/** For afterAll: stops every poller still running and the client. */
export async function closeFixtures(): Promise<void> {
  await Promise.all(pollers.map((p) => p.stop()))
  sqs.destroy()
}

export const unique = (name: string) => `${name}-${randomUUID().slice(0, 8)}`

export { sleep, toRecord }

export async function createQueue(name: string, attributes: Record<string, string> = {}) {
  const { QueueUrl } = await sqs.send(
    new CreateQueueCommand({ QueueName: name, Attributes: { VisibilityTimeout: '1', ...attributes } }),
  )
  const a = await sqs.send(new GetQueueAttributesCommand({ QueueUrl, AttributeNames: ['QueueArn'] }))
  return { queueUrl: QueueUrl!, queueArn: a.Attributes!.QueueArn! }
}

/** A target queue whose messages move to a DLQ after `maxReceiveCount` receives. */
export async function queueWithDlq(name: string, maxReceiveCount: number, attributes: Record<string, string> = {}) {
  const fifo = name.endsWith('.fifo')
  const dlq = await createQueue(fifo ? name.replace(/\.fifo$/, '-dlq.fifo') : `${name}-dlq`, attributes)
  const queue = await createQueue(name, {
    ...attributes,
    RedrivePolicy: JSON.stringify({ deadLetterTargetArn: dlq.queueArn, maxReceiveCount }),
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

/** A Lambda context whose remaining time counts down from `budgetMs` (default 30 s). */
export const lambdaContext = (budgetMs?: number) => sharedLambdaContext({ name: 'consumer-test', budgetMs })

/** A loopback TCP server that accepts connections and never answers (an endpoint that hangs). */
export async function silentServer(): Promise<{ url: string; port: number; close(): Promise<void> }> {
  const sockets = new Set<Socket>()
  const server = createServer((socket) => {
    sockets.add(socket)
    socket.on('error', () => {})
    socket.on('close', () => sockets.delete(socket))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as { port: number }
  const close = () =>
    new Promise<void>((resolve) => {
      for (const socket of sockets) socket.destroy()
      server.close(() => resolve())
    })
  return { url: `http://127.0.0.1:${port}`, port, close }
}

/** A logger that prints JSON (Powertools dev mode goes through the global console) into `lines`; for afterEach:
 * vi.restoreAllMocks() and vi.unstubAllEnvs(). */
export function capturedLogger(): { logger: Logger; lines: Record<string, any>[] } {
  vi.stubEnv('POWERTOOLS_DEV', 'true')
  const lines: Record<string, any>[] = []
  for (const method of ['info', 'warn', 'error', 'debug', 'log'] as const) {
    vi.spyOn(console, method).mockImplementation((text: unknown) => {
      const line = String(text)
      if (line.startsWith('{')) lines.push(JSON.parse(line))
      else process.stdout.write(`${line}\n`) // the test's own notes
    })
  }
  return { logger: new Logger({ serviceName: 'consumer-test' }), lines }
}

type Handler = (e: SQSEvent, c: Context) => Promise<SQSBatchResponse>
type Answer = { event: SQSEvent; response: SQSBatchResponse }

/**
 * Runs the handler behind the local event source mapping until `done` holds (given every answer so far), then stops
 * it; returns the answers.
 */
export async function driveUntil(
  handler: Handler,
  queue: { queueUrl: string; queueArn: string },
  done: (answers: Answer[]) => boolean | Promise<boolean>,
  timeoutMs?: number,
): Promise<Answer[]> {
  const answers: Answer[] = []
  const poller = startSqsPoller({
    sqs,
    ...queue,
    waitTimeSeconds: 1,
    invoke: async (event) => {
      const response = await handler(event, lambdaContext())
      answers.push({ event, response })
      return response
    },
  })
  pollers.push(poller)
  try {
    await eventually(() => done(answers), timeoutMs)
  } finally {
    await poller.stop()
  }
  return answers
}

/** Drives the handler until the queue's DLQ holds a message; returns what the DLQ holds. */
export async function driveUntilDeadLettered(
  handler: Handler,
  queue: { queueUrl: string; queueArn: string; dlq: { queueUrl: string } },
  timeoutMs?: number,
) {
  let dead: Awaited<ReturnType<typeof receiveNow>> = []
  const deadLettered = async () => {
    dead = await receiveNow(queue.dlq.queueUrl)
    return dead.length > 0
  }
  await driveUntil(handler, queue, deadLettered, timeoutMs)
  return dead
}

export const options = (extra: JobHandlerOptions<unknown> = {}): JobHandlerOptions<unknown> => ({
  sqsEndpoint,
  logger: silent,
  backoff: { baseSeconds: 1, jitter: false },
  ...extra,
})

/** Deletes a message as the event source mapping does for a record that succeeded. */
export async function deleteRecord(queueUrl: string, receiptHandle: string): Promise<void> {
  await sqs.send(new DeleteMessageCommand({ QueueUrl: queueUrl, ReceiptHandle: receiptHandle }))
}
