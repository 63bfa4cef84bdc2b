// The example business Lambda (functions/consumer.ts) on a real fauxqs message: it logs the job and its lateness.
import { randomUUID } from 'node:crypto'
import { afterAll, describe, expect, inject, it, vi } from 'vitest'
import { messageBody } from '../../src/sqs/envelope'
import { closeFixtures, lambdaContext, unique } from './fixtures'
import { consumerQueue, receiveEvent, sendRaw } from './queues'

afterAll(async () => {
  await closeFixtures()
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
    const queue = await consumerQueue(unique('example'))
    const dueMs = Date.now() - 2_000
    const id = `welcome-${randomUUID()}`
    const job = { id, queue: 'orders', payloadJson: '{"userId":7}', dueMs, createdAtMs: dueMs - 60_000 }
    await sendRaw(queue.url, messageBody(job, dueMs + 5), id)
    const event = await receiveEvent(queue.url, queue.arn, 1)
    // act
    const response = await handler(event, lambdaContext())
    // assess
    expect(response.batchItemFailures).toEqual([])
    const received = lines.find((l) => l.message === 'job received')
    expect(received).toMatchObject({ jobId: id, queue: 'orders', attempt: 1 })
    expect(received!.latenessMs as number).toBeGreaterThanOrEqual(2_000)
  })

  it('fails a job whose payload says "fail": true, and that job alone (the way to watch a retry and the DLQ)', async () => {
    // prepare: two jobs in one batch, one asking to fail
    vi.stubEnv('SQS_ENDPOINT', inject('sqsEndpoint'))
    const { handler } = await import('../../functions/consumer')
    const queue = await consumerQueue(unique('example-fail'))
    const dueMs = Date.now()
    for (const [id, payloadJson] of [
      [`ok-${randomUUID()}`, '{"orderId":1}'],
      [`fail-${randomUUID()}`, '{"orderId":2,"fail":true}'],
    ] as const) {
      await sendRaw(queue.url, messageBody({ id, queue: 'orders', payloadJson, dueMs, createdAtMs: dueMs }, dueMs), id)
    }
    const event = await receiveEvent(queue.url, queue.arn, 2)
    const failing = event.Records.find((r) => r.body.includes('"fail":true'))!
    // act
    const response = await handler(event, lambdaContext())
    // assess
    expect(response.batchItemFailures).toEqual([{ itemIdentifier: failing.messageId }])
  })
})
