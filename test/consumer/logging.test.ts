// Every job outcome is one structured JSON line carrying job id, queue, attempt and lateness — never the payload.
import { Logger } from '@aws-lambda-powertools/logger'
import type { Context, SQSEvent } from 'aws-lambda'
import { afterEach, describe, expect, inject, it, vi } from 'vitest'
import { toRecord } from '../../tools/sdq-poll/sqs-poller'
import { jobHandler } from '../../src/consumer'
import { messageBody } from '../../src/sqs/envelope'

const ARN = 'arn:aws:sqs:us-east-1:000000000000:orders'
const context = { functionName: 'consumer', awsRequestId: 'req-1', getRemainingTimeInMillis: () => 10_000 } as Context

function event(bodies: string[], receiveCount = '3'): SQSEvent {
  return {
    Records: bodies.map((Body, n) =>
      toRecord(
        {
          MessageId: `m${n}`,
          ReceiptHandle: `rh${n}`,
          Body,
          Attributes: { ApproximateReceiveCount: receiveCount },
          MessageAttributes: { jobId: { DataType: 'String', StringValue: `job-of-m${n}` } },
        },
        ARN,
      ),
    ),
  }
}

/** Captures what Powertools prints (dev mode routes it through the global console). */
function captureLogs() {
  vi.stubEnv('POWERTOOLS_DEV', 'true')
  const lines: Record<string, unknown>[] = []
  for (const method of ['info', 'warn', 'error', 'debug', 'log'] as const) {
    vi.spyOn(console, method).mockImplementation((text: unknown) => void lines.push(JSON.parse(String(text))))
  }
  return lines
}

afterEach(() => {
  vi.restoreAllMocks()
  vi.unstubAllEnvs()
})

describe('consumer logs', () => {
  it('logs each job with its id, queue, attempt and lateness, and keeps the payload out', async () => {
    // prepare
    const lines = captureLogs()
    const dueMs = Date.now() - 1_500
    const secret = 'card-4242'
    const body = messageBody(
      { id: 'j1', queue: 'orders', payloadJson: JSON.stringify({ secret }), dueMs, createdAtMs: dueMs },
      dueMs,
    )
    const handler = jobHandler(async (_job, ctx) => ctx.logger.info('business says hi'), {
      logger: new Logger({ serviceName: 'test' }),
      backoff: false,
    })
    // act
    await handler(event([body]), context)
    // assess
    const done = lines.find((l) => l.message === 'job done')!
    expect(done).toMatchObject({ jobId: 'j1', queue: 'orders', attempt: 3, messageId: 'm0', level: 'INFO' })
    expect(done.latenessMs as number).toBeGreaterThanOrEqual(1_500)
    expect(lines.find((l) => l.message === 'business says hi')).toMatchObject({ jobId: 'j1', attempt: 3 })
    expect(JSON.stringify(lines)).not.toContain(secret)
  })

  it('logs a failure with the error and its retry delay, a malformed message without its body, and a retry delay SQS refused', async () => {
    // prepare
    const lines = captureLogs()
    const dueMs = Date.now()
    const body = messageBody(
      { id: 'j2', queue: 'orders', payloadJson: '{"secret":"s3cr3t"}', dueMs, createdAtMs: dueMs },
      dueMs,
    )
    const handler = jobHandler(
      async () => {
        throw new Error('payment API down')
      },
      {
        logger: new Logger({ serviceName: 'test' }),
        backoff: { baseSeconds: 5, jitter: false },
        sqsEndpoint: inject('sqsEndpoint'), // the receipt handles are made up: SQS refuses the visibility change
      },
    )
    // act
    const response = await handler(event([body, '{"secret":"s3cr3t", broken']), context)
    // assess
    expect(response.batchItemFailures.map((f) => f.itemIdentifier).sort()).toEqual(['m0', 'm1'])
    expect(lines.find((l) => l.message === 'job failed')).toMatchObject({
      jobId: 'j2',
      level: 'ERROR',
      error: { message: 'payment API down' },
      retryInSeconds: 20, // third attempt: 5 s * 2^2
    })
    const refused = lines.filter((l) => l.message === 'could not delay the retry: the queue visibility timeout applies')
    expect(refused.map((l) => l.messageId).sort()).toEqual(['m0', 'm1'])
    expect(lines.find((l) => l.message === 'malformed message')).toMatchObject({
      messageId: 'm1',
      jobId: 'job-of-m1', // from the message attribute: the body could not be read
      reason: 'body is not JSON',
    })
    expect(JSON.stringify(lines)).not.toContain('s3cr3t')
  })
})
