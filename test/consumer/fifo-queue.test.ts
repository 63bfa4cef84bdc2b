// The consumer toolkit on FIFO queues: order within a message group survives failures and retries.
import type { SQSEvent } from 'aws-lambda'
import { describe, expect, it } from 'vitest'
import { jobHandler, type Job } from '../../src/consumer'
import { capturedLogger, driveUntil, lambdaContext, options, unique, useConsumerFixtures } from './fixtures'
import { consumerQueue, handRecord, sendJob } from './queues'

useConsumerFixtures()

describe('jobHandler on a FIFO queue', () => {
  it('stops a message group at its first failure within a batch and keeps other groups going', async () => {
    // prepare: fauxqs hands out one message per group per receive, so this batch (several messages of a group,
    // as AWS delivers them) is built here; backoff is off, so nothing talks to SQS.
    const arn = `arn:aws:sqs:us-east-1:000000000000:${unique('orders')}.fifo`
    const layout = [
      ['a1', 'A'],
      ['a2', 'A'],
      ['b1', 'B'],
      ['a3', 'A'],
      ['b2', 'B'],
    ] as const
    const event: SQSEvent = {
      Records: layout.map(([id, group], n) =>
        handRecord(id, id, arn, { MessageGroupId: group, SequenceNumber: String(n) }),
      ),
    }
    const runs: string[] = []
    const handler = jobHandler(
      async (job: Job) => {
        runs.push(job.id)
        if (job.id === 'a2') throw new Error('a2 fails')
      },
      options({ backoff: false }),
    )
    // act
    const response = await handler(event, lambdaContext())
    // assess: a3 must not overtake a2; group B is unaffected
    expect(runs).toEqual(['a1', 'a2', 'b1', 'b2'])
    expect(response.batchItemFailures).toEqual([{ itemIdentifier: 'm-a2' }, { itemIdentifier: 'm-a3' }])
  })

  it('says so when a message skipped behind a failure of its group was on its last receive', async () => {
    // prepare: the first receive is the last (maxReceiveCount 1); b1 fails, b2 is skipped without running
    const arn = `arn:aws:sqs:us-east-1:000000000000:${unique('orders')}.fifo`
    const event: SQSEvent = {
      Records: [
        handRecord('b1', 'b1', arn, { MessageGroupId: 'B', SequenceNumber: '1' }),
        handRecord('b2', 'b2', arn, { MessageGroupId: 'B', SequenceNumber: '2' }),
      ],
    }
    const { logger, lines } = capturedLogger()
    const handler = jobHandler(
      async (job: Job) => {
        if (job.id === 'b1') throw new Error('b1 fails')
      },
      options({ logger, backoff: false, maxReceiveCount: 1 }),
    )
    // act
    const response = await handler(event, lambdaContext())
    // assess
    expect(response.batchItemFailures).toEqual([{ itemIdentifier: 'm-b1' }, { itemIdentifier: 'm-b2' }])
    const last = lines.filter((l) => l.message === 'last attempt: to the DLQ')
    expect(last).toMatchObject([
      { jobId: 'b1', error: { message: 'b1 fails' } },
      { messageId: 'm-b2', reason: 'not run: an earlier message of its group failed in this batch' },
    ])
  })

  it('retries a failed FIFO message before the rest of its group, after its backoff', async () => {
    // prepare
    const queue = await consumerQueue(`${unique('order')}.fifo`, { FifoQueue: 'true' })
    const [a1, a2, a3, b1, b2] = ['a1', 'a2', 'a3', 'b1', 'b2'].map((s) => unique(s)) as string[] as [
      string,
      string,
      string,
      string,
      string,
    ]
    for (const [id, group] of [
      [a1, 'A'],
      [a2, 'A'],
      [b1, 'B'],
      [a3, 'A'],
      [b2, 'B'],
    ] as const) {
      await sendJob(queue.url, id, {}, group)
    }
    const runs: { id: string; attempt: number; group?: string }[] = []
    const handler = jobHandler(async (job: Job) => {
      runs.push({ id: job.id, attempt: job.attempt, group: job.groupId })
      if (job.id === a2 && job.attempt === 1) throw new Error('a2 fails once')
    }, options())
    // act
    await driveUntil(handler, queue, () => runs.some((r) => r.id === a3))
    // assess
    const group = (g: string) => runs.filter((r) => r.group === g).map((r) => `${r.id}#${r.attempt}`)
    expect(group('A')).toEqual([`${a1}#1`, `${a2}#1`, `${a2}#2`, `${a3}#1`])
    expect(group('B')).toEqual([`${b1}#1`, `${b2}#1`])
  })
})
