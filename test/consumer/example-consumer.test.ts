// The example business Lambda (functions/consumer.ts) on a real fauxqs message: it logs the job and its lateness.
import { randomUUID } from 'node:crypto'
import {
  CreateQueueCommand,
  GetQueueAttributesCommand,
  ReceiveMessageCommand,
  SendMessageCommand,
  SQSClient,
} from '@aws-sdk/client-sqs'
import type { Context } from 'aws-lambda'
import { afterAll, describe, expect, inject, it, vi } from 'vitest'
import { localCredentials } from '../../local/sqs-endpoint'
import { toRecord } from '../../local/sqs-poller'
import { messageBody } from '../../src/sqs/envelope'

const sqs = new SQSClient({ endpoint: inject('sqsEndpoint'), region: 'us-east-1', credentials: localCredentials })
afterAll(() => {
  sqs.destroy()
  vi.restoreAllMocks()
  vi.unstubAllEnvs()
})

describe('example consumer', () => {
  it('logs each job it receives with how late it arrived', async () => {
    // prepare: a job due 2 s ago, as the scanner sends it
    vi.stubEnv('POWERTOOLS_DEV', 'true') // Powertools then prints through the global console
    vi.stubEnv('SQS_ENDPOINT', inject('sqsEndpoint'))
    const lines: Record<string, unknown>[] = []
    vi.spyOn(console, 'info').mockImplementation((text: unknown) => void lines.push(JSON.parse(String(text))))
    const { handler } = await import('../../functions/consumer')
    const { QueueUrl } = await sqs.send(new CreateQueueCommand({ QueueName: `example-${randomUUID().slice(0, 8)}` }))
    const { Attributes } = await sqs.send(new GetQueueAttributesCommand({ QueueUrl, AttributeNames: ['QueueArn'] }))
    const dueMs = Date.now() - 2_000
    const id = `welcome-${randomUUID()}`
    await sqs.send(
      new SendMessageCommand({
        QueueUrl,
        MessageBody: messageBody(
          { id, queue: 'orders', payloadJson: '{"userId":7}', dueMs, createdAtMs: dueMs - 60_000 },
          dueMs + 5,
        ),
      }),
    )
    const { Messages } = await sqs.send(
      new ReceiveMessageCommand({ QueueUrl, WaitTimeSeconds: 1, MessageSystemAttributeNames: ['All'] }),
    )
    const context = { functionName: 'consumer', awsRequestId: 'r1', getRemainingTimeInMillis: () => 30_000 } as Context
    // act
    const response = await handler({ Records: Messages!.map((m) => toRecord(m, Attributes!.QueueArn!)) }, context)
    // assess
    expect(response.batchItemFailures).toEqual([])
    const received = lines.find((l) => l.message === 'job received')
    expect(received).toMatchObject({ jobId: id, queue: 'orders', attempt: 1 })
    expect(received!.latenessMs as number).toBeGreaterThanOrEqual(2_000)
  })
})
