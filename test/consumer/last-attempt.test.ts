// The last receive before the DLQ: no backoff (SQS moves the message on its next receive anyway), one line that says
// so, and a visibility never beyond the 12 h SQS allows from the receipt.
import { describe, expect, it } from 'vitest'
import { jobHandler } from '../../src/consumer'
import { MAX_VISIBILITY_SECONDS } from '../../src/consumer/backoff'
import { maxVisibilitySeconds, RECEIPT_SLACK_SECONDS, retryPlan } from '../../src/consumer/retry-plan'
import { capturedLogger, driveUntilDeadLettered, lambdaContext, options, unique, useConsumerFixtures } from './fixtures'
import { queueWithDlq, receiveEvent, receiveNow, sendJob, sendRaw } from './queues'

useConsumerFixtures()

describe('the last attempt', () => {
  it('sends a job that fails its last receive to the DLQ at once, read from the queue redrive policy, announcing no retry', async () => {
    // prepare: maxReceiveCount 2 on the queue only (the toolkit is not told); retries after 3 s, then 6 s
    const queue = await queueWithDlq(unique('last'), 2)
    const id = unique('job')
    await sendJob(queue.url, id, {})
    const { logger, lines } = capturedLogger()
    let lastFailureAt = 0
    const handler = jobHandler(
      async (job) => {
        if (job.attempt === 2) lastFailureAt = performance.now()
        throw new Error(`payment API down (attempt ${job.attempt})`)
      },
      options({ logger, backoff: { baseSeconds: 3, capSeconds: 3_600, jitter: false } }),
    )
    // act
    const dead = await driveUntilDeadLettered(handler, queue, 12_000)
    const toDlqMs = performance.now() - lastFailureAt
    // assess
    expect(JSON.parse(dead[0]!.Body!)).toMatchObject({ id })
    expect(lines.find((l) => l.message === 'job failed')).toMatchObject({ jobId: id, attempt: 1, retryInSeconds: 3 })
    expect(lines.find((l) => l.message === 'last attempt: to the DLQ')).toMatchObject({
      jobId: id,
      attempt: 2,
      maxReceiveCount: 2,
      level: 'ERROR',
      error: { message: 'payment API down (attempt 2)' },
    })
    expect(lines.find((l) => l.message === 'last attempt: to the DLQ')).not.toHaveProperty('retryInSeconds')
    console.info(`last attempt failed -> in the DLQ after ${Math.round(toDlqMs)} ms`)
    expect(toDlqMs).toBeLessThan(3_000) // its backoff would have been 6 s (attempt 2, base 3 s)
  })

  it('sends a malformed message to the DLQ at once on its last receive, whatever malformedRetrySeconds says', async () => {
    // prepare: maxReceiveCount 1: the first receive is the last
    const queue = await queueWithDlq(unique('last-malformed'), 1)
    await sendRaw(queue.url, '{"broken', 'broken-job')
    const { logger, lines } = capturedLogger()
    const handler = jobHandler(async () => {}, options({ logger, malformedRetrySeconds: 600 }))
    // act
    const dead = await driveUntilDeadLettered(handler, queue, 8_000)
    // assess
    expect(dead.map((m) => m.Body)).toEqual(['{"broken'])
    expect(lines.find((l) => l.message === 'malformed message')).toMatchObject({
      jobId: 'broken-job',
      lastAttempt: true,
      maxReceiveCount: 1,
    })
    expect(lines.find((l) => l.message === 'malformed message')).not.toHaveProperty('retryInSeconds')
  })

  it('plans visibility 0 on the last receive, and the backoff before it or without a DLQ', () => {
    // prepare / act / assess: the pure plan
    const base = { kind: 'failed' as const, malformedRetrySeconds: 0, maxVisibility: 40_000 }
    const backoff = { baseSeconds: 5, capSeconds: 900, jitter: false }
    expect(retryPlan({ ...base, backoff, attempt: 4, maxReceiveCount: 5 })).toEqual({ seconds: 40, lastAttempt: false })
    expect(retryPlan({ ...base, backoff, attempt: 5, maxReceiveCount: 5 })).toEqual({ seconds: 0, lastAttempt: true })
    expect(retryPlan({ ...base, backoff, attempt: 9, maxReceiveCount: null })).toEqual({
      seconds: 900,
      lastAttempt: false,
    })
    expect(retryPlan({ ...base, backoff: false, attempt: 2, maxReceiveCount: undefined })).toEqual({
      lastAttempt: false,
    })
    expect(retryPlan({ ...base, backoff: false, attempt: 2, maxReceiveCount: 2 })).toEqual({
      seconds: 0,
      lastAttempt: true,
    })
  })
})

describe('the 12 h visibility limit', () => {
  it('never asks for more than SQS allows from the receipt, however large the cap and the attempt', async () => {
    // prepare: attempt 500 of a real message, a cap far beyond 12 h, a 30 s invocation budget
    const queue = await queueWithDlq(unique('cap'), 1_000)
    await sendJob(queue.url, unique('job'), {})
    const event = await receiveEvent(queue.url, queue.arn, 1)
    event.Records[0]!.attributes.ApproximateReceiveCount = '500'
    const { logger, lines } = capturedLogger()
    const handler = jobHandler(
      async () => {
        throw new Error('down')
      },
      options({ logger, backoff: { baseSeconds: 5, capSeconds: 10 ** 9, jitter: false } }),
    )
    // act
    const response = await handler(event, lambdaContext(30_000))
    // assess: 12 h less the event source mapping's longest batching window, the budget and slack; SQS took it
    expect(response.batchItemFailures).toHaveLength(1)
    const failed = lines.find((l) => l.message === 'job failed')!
    expect(failed.retryInSeconds).toBe(MAX_VISIBILITY_SECONDS - RECEIPT_SLACK_SECONDS - 30)
    expect(lines.filter((l) => l.message.startsWith('could not delay'))).toEqual([])
    expect(await receiveNow(queue.url)).toEqual([])
    expect(maxVisibilitySeconds(900)).toBe(43_200 - 330 - 900)
  })
})
