// The local event source mapping settles batches the way AWS does with ReportBatchItemFailures.
import { sleep } from '../../devkit/sleep'
import { SendMessageCommand } from '@aws-sdk/client-sqs'
import type { SQSEvent } from 'aws-lambda'
import { afterAll, describe, expect, it } from 'vitest'
import { startSqsPoller } from '../../tools/sdq-poll/sqs-poller'
import { eventually } from '../support/eventually'
import { closeFixtures, unique } from './fixtures'
import { consumerQueue, receiveNow, sqs } from './queues'

afterAll(closeFixtures)

/** A queue with a 1 s visibility timeout; FIFO when the attributes say so. */
const queue = (attributes: Record<string, string> = {}) =>
  consumerQueue(`${unique('poller')}${attributes.FifoQueue === 'true' ? '.fifo' : ''}`, attributes)

/** The bodies still on the queue, once the 1 s visibility of anything received and not deleted has run out. */
async function remaining(queueUrl: string): Promise<string[]> {
  await sleep(1_200)
  return (await receiveNow(queueUrl)).map((m) => m.Body!).sort()
}

// The tests of this file run side by side (each its own key prefix and queues): they wait on real time, not the CPU.
describe.concurrent('local SQS poller', () => {
  it('builds a Lambda-shaped event and deletes only the records not reported as failed', async () => {
    // prepare
    const { url: queueUrl, arn: queueArn } = await queue()
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
    await eventually(() => seen.size === 3)
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
    const { url: queueUrl, arn: queueArn } = await queue()
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
    await eventually(() => calls === 1)
    await poller.stop()
    // assess
    expect(errors).toHaveLength(1)
    expect(await remaining(queueUrl)).toEqual(['x'])
  })

  it('treats an unknown itemIdentifier as a failure of the whole batch, like AWS', async () => {
    // prepare
    const { url: queueUrl, arn: queueArn } = await queue()
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
    await eventually(() => calls === 1)
    await poller.stop()
    // assess
    expect(await remaining(queueUrl)).toEqual(['y'])
  })

  it('passes FIFO group ids and stops promptly while long-polling', async () => {
    // prepare
    const { url: queueUrl, arn: queueArn } = await queue({ FifoQueue: 'true', ContentBasedDeduplication: 'true' })
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
    await eventually(() => groups.length === 1)
    const t0 = Date.now()
    await poller.stop()
    // assess
    expect(groups).toEqual(['g1'])
    expect(Date.now() - t0).toBeLessThan(5_000)
    expect(await remaining(queueUrl)).toEqual([])
  })
})
