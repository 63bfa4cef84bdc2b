// The consumer toolkit on real fauxqs standard queues: what a business Lambda's author relies on — partial batch
// failures, backoff, the DLQ, malformed messages and a bound on concurrency.
import { sleep } from '../../devkit/sleep'
import { describe, expect, it } from 'vitest'
import { jobHandler } from '../../src/consumer'
import { driveUntil, driveUntilDeadLettered, lambdaContext, options, unique, useConsumerFixtures } from './fixtures'
import { consumerQueue, deleteRecord, queueWithDlq, receiveEvent, receiveNow, sendJob, sendRaw } from './queues'

useConsumerFixtures()

// The tests of this file run side by side (each its own key prefix and queues): they wait on real time, not the CPU.
describe.concurrent('jobHandler on a standard queue', () => {
  it('retries only the records that failed in a partial batch', async () => {
    // prepare
    const queue = await consumerQueue(unique('partial'))
    const ids = ['a', 'b', 'c', 'd'].map((s) => unique(s))
    for (const id of ids) await sendJob(queue.url, id, { n: id })
    const runs: string[] = []
    const handler = jobHandler(async (job) => {
      runs.push(`${job.id}#${job.attempt}`)
      if (job.id === ids[1] && job.attempt === 1) throw new Error('transient')
    }, options())
    // act
    const answers = await driveUntil(handler, queue, () => runs.includes(`${ids[1]}#2`))
    // assess
    expect(runs.sort()).toEqual([`${ids[0]}#1`, `${ids[1]}#1`, `${ids[1]}#2`, `${ids[2]}#1`, `${ids[3]}#1`].sort())
    const failures = answers.flatMap((a) => a.response.batchItemFailures)
    expect(failures).toHaveLength(1)
    await sleep(1_200) // past the queue's visibility timeout: anything left undeleted would be receivable
    expect(await receiveNow(queue.url)).toEqual([])
  })

  it('hides a failed message for the backoff delay, longer than the queue visibility timeout', async () => {
    // prepare: queue visibility 2 s, backoff 4 s on the first failure (margins for a busy machine)
    const queue = await consumerQueue(unique('backoff'), { VisibilityTimeout: '2' })
    const id = unique('job')
    await sendJob(queue.url, id, {})
    const handler = jobHandler(
      async () => {
        throw new Error('down')
      },
      options({ backoff: { baseSeconds: 4, jitter: false } }),
    )
    const event = await receiveEvent(queue.url, queue.arn, 1)
    // act (the handler hides the message before it returns: 4 s from some time after this)
    const failedAt = Date.now()
    const response = await handler(event, lambdaContext())
    // assess
    expect(response.batchItemFailures).toEqual([{ itemIdentifier: event.Records[0]!.messageId }])
    await sleep(2_700)
    expect(await receiveNow(queue.url)).toEqual([]) // the queue's 2 s alone would have shown it by now
    const again = await receiveNow(queue.url, 5)
    expect(again).toHaveLength(1)
    expect(Date.now() - failedAt).toBeGreaterThanOrEqual(3_990)
    expect(again[0]!.Attributes!.ApproximateReceiveCount).toBe('2')
  })

  it('moves a job that keeps failing to the DLQ after maxReceiveCount attempts', async () => {
    // prepare
    const queue = await queueWithDlq(unique('dlq'), 2)
    const id = unique('job')
    await sendJob(queue.url, id, { orderId: 42 })
    const attempts: number[] = []
    const handler = jobHandler(async (job) => {
      attempts.push(job.attempt)
      throw new Error('always')
    }, options())
    // act
    const dead = await driveUntilDeadLettered(handler, queue)
    // assess
    expect(attempts).toEqual([1, 2])
    expect(JSON.parse(dead[0]!.Body!)).toMatchObject({ id, payload: { orderId: 42 } })
  })

  it('fails only the malformed record of a batch and sends it to the DLQ without backoff', async () => {
    // prepare: backoff of 30 s would keep a failed *job* out of the DLQ for the whole test
    const queue = await queueWithDlq(unique('malformed'), 2)
    const good = unique('good')
    await sendRaw(queue.url, '{"id": "broken", "payload": ', 'broken')
    await sendJob(queue.url, good, { ok: true })
    const runs: string[] = []
    const handler = jobHandler(async (job) => void runs.push(job.id), options({ backoff: { baseSeconds: 30 } }))
    const event = await receiveEvent(queue.url, queue.arn, 2)
    const bad = event.Records.find((r) => r.body.startsWith('{"id": "broken"'))!
    // act
    const response = await handler(event, lambdaContext())
    // assess: the batch survived and only the malformed record is reported
    expect(response.batchItemFailures).toEqual([{ itemIdentifier: bad.messageId }])
    expect(runs).toEqual([good])
    // act: settle that batch as AWS would, then let the poller carry on
    await deleteRecord(queue.url, event.Records.find((r) => r !== bad)!.receiptHandle)
    const dead = await driveUntilDeadLettered(handler, queue, 10_000)
    // assess
    expect(dead.map((m) => m.Body)).toEqual([bad.body])
    expect(runs).toEqual([good])
  })

  it('hides a malformed message for malformedRetrySeconds also when backoff is off', async () => {
    // prepare: queue visibility 1 s; malformed messages wait 4 s
    const queue = await consumerQueue(unique('malformed-wait'))
    await sendRaw(queue.url, 'not json', 'bad')
    const handler = jobHandler(
      async () => {},
      options({ backoff: false, malformedRetrySeconds: 4, maxReceiveCount: 5 }),
    )
    const event = await receiveEvent(queue.url, queue.arn, 1)
    // act
    const failedAt = Date.now()
    const response = await handler(event, lambdaContext())
    // assess
    expect(response.batchItemFailures).toHaveLength(1)
    await sleep(2_000)
    expect(await receiveNow(queue.url)).toEqual([]) // the queue's 1 s alone would have shown it
    const again = await receiveNow(queue.url, 5)
    expect(again.map((m) => m.Body)).toEqual(['not json'])
    expect(Date.now() - failedAt).toBeGreaterThanOrEqual(3_990)
  })

  it('runs at most `concurrency` records of a batch at once', async () => {
    // prepare
    const queue = await consumerQueue(unique('bound'), { VisibilityTimeout: '30' })
    for (let i = 0; i < 6; i++) await sendJob(queue.url, unique(`j${i}`), { i })
    let active = 0
    let peak = 0
    const handler = jobHandler(
      async () => {
        peak = Math.max(peak, ++active)
        await sleep(50)
        active--
      },
      options({ concurrency: 2 }),
    )
    const event = await receiveEvent(queue.url, queue.arn, 6)
    // act
    const response = await handler(event, lambdaContext())
    // assess
    expect(response.batchItemFailures).toEqual([])
    expect(peak).toBe(2)
  })
})
