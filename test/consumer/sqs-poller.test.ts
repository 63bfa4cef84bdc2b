// The local event source mapping settles batches the way AWS does with ReportBatchItemFailures.
import { randomUUID } from 'node:crypto'
import {
  CreateQueueCommand,
  GetQueueAttributesCommand,
  ReceiveMessageCommand,
  SendMessageCommand,
  SQSClient,
} from '@aws-sdk/client-sqs'
import type { SQSEvent } from 'aws-lambda'
import { afterAll, describe, expect, inject, it } from 'vitest'
import { localCredentials } from '../../local/sqs-endpoint'
import { startSqsPoller } from '../../local/sqs-poller'

const sqs = new SQSClient({ endpoint: inject('sqsEndpoint'), region: 'us-east-1', credentials: localCredentials })
afterAll(() => sqs.destroy())

async function queue(attributes: Record<string, string> = {}) {
  const fifo = attributes.FifoQueue === 'true'
  const name = `poller-${randomUUID().slice(0, 8)}${fifo ? '.fifo' : ''}`
  const { QueueUrl } = await sqs.send(
    new CreateQueueCommand({ QueueName: name, Attributes: { VisibilityTimeout: '1', ...attributes } }),
  )
  const a = await sqs.send(new GetQueueAttributesCommand({ QueueUrl, AttributeNames: ['QueueArn'] }))
  return { queueUrl: QueueUrl!, queueArn: a.Attributes!.QueueArn! }
}

async function remaining(queueUrl: string): Promise<string[]> {
  // visibility 1 s: wait it out so that undeleted messages are receivable again
  await new Promise((r) => setTimeout(r, 1_200))
  const out = await sqs.send(
    new ReceiveMessageCommand({
      QueueUrl: queueUrl,
      MaxNumberOfMessages: 10,
      WaitTimeSeconds: 0,
      VisibilityTimeout: 30,
    }),
  )
  return (out.Messages ?? []).map((m) => m.Body!).sort()
}

function until(check: () => boolean, ms = 10_000): Promise<void> {
  const end = Date.now() + ms
  return new Promise((ok, fail) => {
    const tick = () => (check() ? ok() : Date.now() > end ? fail(new Error('timed out')) : setTimeout(tick, 20))
    tick()
  })
}

describe('local SQS poller', () => {
  it('builds a Lambda-shaped event and deletes only the records not reported as failed', async () => {
    // prepare
    const { queueUrl, queueArn } = await queue()
    for (const body of ['a', 'b', 'c']) {
      await sqs.send(
        new SendMessageCommand({
          QueueUrl: queueUrl,
          MessageBody: body,
          MessageAttributes: { jobId: { DataType: 'String', StringValue: `job-${body}` } },
        }),
      )
    }
    const events: SQSEvent[] = []
    const seen = new Set<string>()
    // act
    const poller = startSqsPoller({
      sqs,
      queueUrl,
      queueArn,
      waitTimeSeconds: 0,
      invoke: async (event) => {
        events.push(event)
        event.Records.forEach((r) => seen.add(r.body))
        return {
          batchItemFailures: event.Records.filter((r) => r.body === 'b').map((r) => ({ itemIdentifier: r.messageId })),
        }
      },
    })
    await until(() => seen.size === 3)
    await poller.stop()
    // assess
    const r = events[0]!.Records[0]!
    expect(r.eventSource).toBe('aws:sqs')
    expect(r.eventSourceARN).toBe(queueArn)
    expect(r.awsRegion).toBe(queueArn.split(':')[3])
    expect(Number(r.attributes.ApproximateReceiveCount)).toBe(1)
    expect(r.messageAttributes.jobId).toMatchObject({ dataType: 'String', stringValue: `job-${r.body}` })
    expect(r.receiptHandle).toBeTruthy()
    expect(await remaining(queueUrl)).toEqual(['b'])
  })

  it('deletes nothing when the handler throws', async () => {
    // prepare
    const { queueUrl, queueArn } = await queue()
    await sqs.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: 'x' }))
    let calls = 0
    const errors: unknown[] = []
    // act
    const poller = startSqsPoller({
      sqs,
      queueUrl,
      queueArn,
      waitTimeSeconds: 0,
      onError: (e) => errors.push(e),
      invoke: async () => {
        calls++
        throw new Error('boom')
      },
    })
    await until(() => calls === 1)
    await poller.stop()
    // assess
    expect(errors).toHaveLength(1)
    expect(await remaining(queueUrl)).toEqual(['x'])
  })

  it('treats an unknown itemIdentifier as a failure of the whole batch, like AWS', async () => {
    // prepare
    const { queueUrl, queueArn } = await queue()
    await sqs.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: 'y' }))
    let calls = 0
    // act
    const poller = startSqsPoller({
      sqs,
      queueUrl,
      queueArn,
      waitTimeSeconds: 0,
      onError: () => {},
      invoke: async () => {
        calls++
        return { batchItemFailures: [{ itemIdentifier: 'not-in-this-batch' }] }
      },
    })
    await until(() => calls === 1)
    await poller.stop()
    // assess
    expect(await remaining(queueUrl)).toEqual(['y'])
  })

  it('passes FIFO group ids and stops promptly while long-polling', async () => {
    // prepare
    const { queueUrl, queueArn } = await queue({ FifoQueue: 'true', ContentBasedDeduplication: 'true' })
    await sqs.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: 'f', MessageGroupId: 'g1' }))
    const groups: (string | undefined)[] = []
    // act
    const poller = startSqsPoller({
      sqs,
      queueUrl,
      queueArn,
      waitTimeSeconds: 20,
      invoke: async (event) => void groups.push(...event.Records.map((r) => r.attributes.MessageGroupId)),
    })
    await until(() => groups.length === 1)
    const t0 = Date.now()
    await poller.stop()
    // assess
    expect(groups).toEqual(['g1'])
    expect(Date.now() - t0).toBeLessThan(5_000)
    expect(await remaining(queueUrl)).toEqual([])
  })
})
