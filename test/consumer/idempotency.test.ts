// The consumer toolkit with idempotency on (Powertools over a real redis-server): the business code runs once per
// job, however often SQS or the scanner delivers it.
import { sleep } from '../../devkit/sleep'
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda'
import { Redis } from 'ioredis'
import { afterAll, describe, expect, inject, it } from 'vitest'
import { jobHandler } from '../../src/consumer'
import { driveUntil, lambdaContext, options, unique, useConsumerFixtures } from './fixtures'
import { consumerQueue, handRecord, jobBody, receiveNow, sendJob, sendRaw } from './queues'

useConsumerFixtures()

// The tests of this file run side by side (each its own key prefix and queues): they wait on real time, not the CPU.
describe.concurrent('jobHandler with idempotency (real Redis)', () => {
  const redis = new Redis(inject('redisUrl'))
  afterAll(() => redis.quit())

  it('runs the business code once when the same job is delivered twice', async () => {
    // prepare: two copies of one job (what a lost ack or an SQS duplicate produces), with different dispatch times
    const queue = await consumerQueue(unique('idem'))
    const id = unique('job')
    const due = Date.now() - 10
    await sendRaw(queue.url, jobBody(id, { x: 1 }, due), id)
    await sendRaw(
      queue.url,
      jobBody(id, { x: 1 }, due).replace(/"dispatchedAt":"[^"]+"/, `"dispatchedAt":"${new Date().toISOString()}"`),
      id,
    )
    let runs = 0
    const handler = jobHandler(
      async () => {
        runs++
        await sleep(200) // the copies may arrive together: the second must wait for the first, not run beside it
      },
      options({ idempotency: { redis, keyPrefix: unique('idem') } }),
    )
    // act
    const settled = (answers: { event: SQSEvent; response: SQSBatchResponse }[]) =>
      answers.reduce((n, a) => n + a.event.Records.length - a.response.batchItemFailures.length, 0)
    await driveUntil(handler, queue, (answers) => settled(answers) === 2)
    // assess
    expect(runs).toBe(1)
    await sleep(1_200)
    expect(await receiveNow(queue.url)).toEqual([])
  })

  it('fails the job, without running it, when the idempotency store is unreachable', async () => {
    // prepare: a client to a port nobody listens on, failing commands at once instead of queueing them
    const down = new Redis({
      host: '127.0.0.1',
      port: 1,
      lazyConnect: true,
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      retryStrategy: () => null,
    })
    let runs = 0
    const handler = jobHandler(async () => void runs++, options({ backoff: false, idempotency: { redis: down } }))
    const record = handRecord('1', unique('job'), 'arn:aws:sqs:us-east-1:000000000000:idem-down')
    // act
    const response = await handler({ Records: [record] }, lambdaContext())
    // assess
    expect(response.batchItemFailures).toEqual([{ itemIdentifier: 'm-1' }])
    expect(runs).toBe(0)
    down.disconnect()
  })

  it('runs a job again after its business code failed', async () => {
    // prepare
    const queue = await consumerQueue(unique('idem-fail'))
    const id = unique('job')
    await sendJob(queue.url, id, {})
    const attempts: number[] = []
    const handler = jobHandler(
      async (job) => {
        attempts.push(job.attempt)
        if (job.attempt === 1) throw new Error('first try fails')
      },
      options({ idempotency: { redis, keyPrefix: unique('idem') } }),
    )
    // act
    await driveUntil(handler, queue, () => attempts.length === 2)
    // assess
    expect(attempts).toEqual([1, 2])
  })
})
