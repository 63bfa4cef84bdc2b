// The batch answer goes back before the Lambda timeout, whatever SQS or the business code do: records that succeeded
// are never redelivered because the toolkit's own calls (or a slow job) ran into the timeout.
import { sleep } from '../../devkit/sleep'
import { SQSClient } from '@aws-sdk/client-sqs'
import type { Context, SQSBatchResponse, SQSEvent } from 'aws-lambda'
import { describe, expect, it } from 'vitest'
import { localCredentials } from '../../local/sqs-endpoint'
import { jobHandler, type Job } from '../../src/consumer'
import { batchDeadline } from '../../src/consumer/deadline'
import { capturedLogger, lambdaContext, options, silentServer, unique, useConsumerFixtures } from './fixtures'
import { handRecord } from './queues'

useConsumerFixtures()

/** Two records, the second fails; the queue's SQS endpoint never answers. */
function batchOnSilentQueue() {
  const arn = `arn:aws:sqs:us-east-1:000000000000:${unique('silent')}`
  return { Records: [handRecord('ok', unique('ok'), arn), handRecord('bad', unique('bad'), arn)] }
}

/** Runs `handler` on `event` with a Lambda budget of `budgetMs`; returns its answer and how long it took. */
async function answerWithin(
  handler: (e: SQSEvent, c: Context) => Promise<SQSBatchResponse>,
  event: SQSEvent,
  budgetMs: number,
) {
  const t0 = performance.now()
  const response = await handler(event, lambdaContext(budgetMs))
  return { response, elapsedMs: performance.now() - t0 }
}

const failSecond = async (job: Job) => {
  if (job.messageId === 'm-bad') throw new Error('business failure')
}

describe('jobHandler against an SQS endpoint that never answers', () => {
  it('answers before a 3 s deadline with only the failed record listed, its backoff given up in time', async () => {
    // prepare: the toolkit's own SQS client (5 s per request, 2 attempts) pointed at a silent endpoint
    const silent = await silentServer()
    const { logger, lines } = capturedLogger()
    const handler = jobHandler(failSecond, options({ sqsEndpoint: silent.url, logger }))
    try {
      // act
      const { response, elapsedMs } = await answerWithin(handler, batchOnSilentQueue(), 3_000)
      // assess: a middy TimeoutError would have rejected instead, and failed the record that succeeded too
      expect(response.batchItemFailures).toEqual([{ itemIdentifier: 'm-bad' }])
      expect(elapsedMs).toBeLessThan(3_000)
      console.info(`silent SQS, 3 s budget: answered after ${Math.round(elapsedMs)} ms`)
      const refused = lines.filter(
        (l) => l.message === 'could not delay the retry: the queue visibility timeout applies',
      )
      expect(refused).toMatchObject([{ messageId: 'm-bad', reason: expect.stringMatching(/no answer within/) }])
    } finally {
      await silent.close()
    }
  })

  it('answers before the deadline even with a client of the SDK defaults (no request timeout)', async () => {
    // prepare: the user's own client, as `new SQSClient()` makes it: it would wait for an answer forever. The budget
    // is 8 s, not a typical 60 s: above 6.75 s the redrive-policy read is capped at 2 s as it is with 60 s, so both
    // run the same code (a budget only makes the wait for the settle margin longer).
    const silent = await silentServer()
    const sqs = new SQSClient({ endpoint: silent.url, region: 'us-east-1', credentials: localCredentials })
    const handler = jobHandler(failSecond, options({ sqs }))
    try {
      // act
      const { response, elapsedMs } = await answerWithin(handler, batchOnSilentQueue(), 8_000)
      // assess
      expect(response.batchItemFailures).toEqual([{ itemIdentifier: 'm-bad' }])
      expect(elapsedMs).toBeLessThan(8_000)
      console.info(`silent SQS, SDK-default client, 8 s budget: answered after ${Math.round(elapsedMs)} ms`)
    } finally {
      sqs.destroy()
      await silent.close()
    }
  }, 20_000)
})

describe('jobHandler near its deadline', () => {
  it('reports a job still running at the deadline as failed and does not start the records behind it', async () => {
    // prepare: one record at a time; the first job takes 20 s, far past a 3 s budget; backoff off (no SQS call)
    const arn = `arn:aws:sqs:us-east-1:000000000000:${unique('slow')}`
    const event = {
      Records: [handRecord('fast', 'fast', arn), handRecord('slow', 'slow', arn), handRecord('late', 'late', arn)],
    }
    const started: string[] = []
    const handler = jobHandler(
      async (job: Job) => {
        started.push(job.id)
        if (job.id === 'slow') await sleep(20_000)
      },
      options({ backoff: false, concurrency: 1, maxReceiveCount: 5 }),
    )
    // act
    const { response, elapsedMs } = await answerWithin(handler, event, 3_000)
    // assess: the fast job stays done; the slow one and the one never started are retried
    expect(response.batchItemFailures).toEqual([{ itemIdentifier: 'm-slow' }, { itemIdentifier: 'm-late' }])
    expect(started).toEqual(['fast', 'slow'])
    expect(elapsedMs).toBeLessThan(3_000)
  })

  it('keeps at least half of a small budget for the records and an answer margin for the SQS calls', () => {
    // prepare: a fake clock and a budget that counts down with it
    let now = 1_000
    const context = { getRemainingTimeInMillis: () => 3_000 - (now - 1_000) } as any
    // act
    const deadline = batchDeadline(context, 1_000, () => now)
    const small = batchDeadline({ getRemainingTimeInMillis: () => 800 } as any, 1_000, () => now)
    // assess
    expect(deadline.recordsLeftMs()).toBe(2_000)
    expect(deadline.settleLeftMs()).toBe(2_750)
    now += 2_500
    expect(deadline.recordsLeftMs()).toBe(-500)
    expect(deadline.settleLeftMs()).toBe(250)
    expect(small.recordsLeftMs()).toBe(400 - 2_500)
    expect(deadline.budgetSeconds).toBe(3)
    deadline.dispose()
    small.dispose()
  })
})
