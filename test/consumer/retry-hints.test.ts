// What business code can tell the toolkit about a failure: "not before N seconds" (a Retry-After it was given), and
// "no retry can help" (to the DLQ now, after one attempt, not after maxReceiveCount of them).
import { describe, expect, it } from 'vitest'
import { DeadLetterNowError, jobHandler, RetryLaterError } from '../../src/consumer'
import { DEAD_LETTER_REASON_ATTRIBUTE } from '../../src/consumer/dead-letter-now'
import { retryPlan } from '../../src/consumer/retry-plan'
import { type Message, ReceiveMessageCommand } from '@aws-sdk/client-sqs'
import { capturedLogger, driveUntil, options, unique, useConsumerFixtures } from './fixtures'
import { queueWithDlq, sendJob, sqs } from './queues'

useConsumerFixtures()

describe('retry hints from the business code', () => {
  it('waits the longer of the backoff and the asked delay, never beyond the visibility limit', () => {
    // prepare / act / assess: the pure plan
    const base = { kind: 'failed' as const, malformedRetrySeconds: 0, maxVisibility: 600, maxReceiveCount: 10 }
    const backoff = { baseSeconds: 5, capSeconds: 900, jitter: false }
    expect(retryPlan({ ...base, backoff, attempt: 1, notBeforeSeconds: 30 }).seconds).toBe(30)
    expect(retryPlan({ ...base, backoff, attempt: 4, notBeforeSeconds: 30 }).seconds).toBe(40)
    expect(retryPlan({ ...base, backoff, attempt: 1, notBeforeSeconds: 2.2 }).seconds).toBe(5)
    expect(retryPlan({ ...base, backoff: false, attempt: 1, notBeforeSeconds: 7.5 }).seconds).toBe(8)
    expect(retryPlan({ ...base, backoff, attempt: 1, notBeforeSeconds: 86_400 }).seconds).toBe(600)
    expect(retryPlan({ ...base, backoff, attempt: 10, notBeforeSeconds: 30 })).toEqual({
      seconds: 0,
      lastAttempt: true,
    })
  })

  it('moves a job whose code throws DeadLetterNowError to the DLQ after one attempt, with the reason', async () => {
    // prepare: 5 receives allowed; the code says no retry can help
    const queue = await queueWithDlq(unique('dlq-now'), 5)
    const id = unique('job')
    await sendJob(queue.url, id, {})
    const { logger, lines } = capturedLogger()
    const attempts: number[] = []
    const handler = jobHandler(async (job) => {
      attempts.push(job.attempt)
      throw new DeadLetterNowError('the receiver answered 400')
    }, options({ logger }))
    // act
    let dead: Message[] = []
    const deadLettered = async () => {
      const out = await sqs.send(
        new ReceiveMessageCommand({
          QueueUrl: queue.dlq.url,
          MessageAttributeNames: ['All'],
          VisibilityTimeout: 30,
        }),
      )
      dead = out.Messages ?? []
      return dead.length > 0
    }
    await driveUntil(handler, queue, deadLettered, 10_000)
    // assess: one attempt, the copy in the DLQ with its attributes, nothing left in the queue
    expect(attempts).toEqual([1])
    expect(JSON.parse(dead[0]!.Body!)).toMatchObject({ id })
    expect(dead[0]!.MessageAttributes?.jobId?.StringValue).toBe(id)
    expect(dead[0]!.MessageAttributes?.[DEAD_LETTER_REASON_ATTRIBUTE]?.StringValue).toBe('the receiver answered 400')
    const left = await sqs.send(new ReceiveMessageCommand({ QueueUrl: queue.url, WaitTimeSeconds: 2 }))
    expect(left.Messages ?? []).toEqual([])
    expect(lines.find((l) => l.message === 'no retry can succeed: moved to the DLQ now')).toMatchObject({ jobId: id })
  })

  it('hides a job whose code throws RetryLaterError for the asked seconds, not its shorter backoff', async () => {
    // prepare: backoff 1 s; the code asks for 3 s on the first attempt
    const queue = await queueWithDlq(unique('retry-later'), 5)
    await sendJob(queue.url, unique('job'), {})
    const { logger, lines } = capturedLogger()
    const at: number[] = []
    const handler = jobHandler(async (job) => {
      at.push(performance.now())
      if (job.attempt === 1) throw new RetryLaterError('429 Too Many Requests', 3)
    }, options({ logger }))
    // act
    await driveUntil(handler, queue, () => at.length >= 2, 15_000)
    // assess
    expect(lines.find((l) => l.message === 'job failed')).toMatchObject({ retryInSeconds: 3 })
    expect(at[1]! - at[0]!).toBeGreaterThanOrEqual(2_900)
  })
})
