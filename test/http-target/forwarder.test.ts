// The shipped forwarder end to end on loopback: fauxqs, the forwarder behind the local event source mapping, a receiver
// that verifies every delivery with the `standardwebhooks` package. 2xx is done once; 503 with Retry-After is retried
// no sooner than it asks; a 400 goes to the DLQ after one call; a receiver that hangs is cut at the timeout and retried.
// Each call's outcome is kept beside the job's receipt.
import { ReceiveMessageCommand } from '@aws-sdk/client-sqs'
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest'
import { DEAD_LETTER_REASON_ATTRIBUTE } from '../../src/consumer/dead-letter-now'
import { readDelivery } from '../../src/store/delivery-record'
import { sqs } from '../consumer/queues'
import { eventually } from '../support/eventually'
import { approximateCount } from '../support/sqs'
import { toRecord } from '../../tools/sdq-poll/sqs-poller'
import { lambdaContext } from '../support/lambda'
import { sendHttpJobs, startKit, TARGET, type Kit } from './forwarder-kit'
import { messageBody } from '../../src/sqs/envelope'

const jobBody = (id: string, payload: unknown) => {
  const now = Date.now()
  return messageBody({ id, queue: TARGET, payloadJson: JSON.stringify(payload), dueMs: now, createdAtMs: now }, now)
}

let kit: Kit
beforeAll(async () => {
  // 3 s per call, so the hang test below is cut soon
  kit = await startKit({ HTTP_TIMEOUT_MS: '3000' })
  kit.poll(4)
})
afterAll(() => kit?.close())

const url = (path: string) => `${kit.receiver.url}${path}`
const deliveriesOf = (id: string) => kit.receiver.deliveries.filter((d) => d.id === id)
const recordOf = (id: string) => readDelivery(kit.engine.redis, kit.engine.keys, id)

describe('the forwarder', () => {
  it('delivers 10,000 jobs, every one verified by standardwebhooks and delivered exactly once', {
    timeout: 180_000,
  }, async () => {
    // prepare: a forwarder of its own whose calls are cut only after 20 s. With a short cut, a stall of this process
    // (it also sends the 10,000 messages) past the cut makes a receiver that answered get the job again: at least once,
    // which the hang test below proves; this test counts exactly once, so only a broken forwarder may send twice.
    const bulk = await startKit({ HTTP_TIMEOUT_MS: '20000' })
    bulk.poll(4)
    onTestFinished(() => bulk.close())
    const ids = Array.from({ length: 10_000 }, (_, i) => `bulk-${i}`)
    const started = performance.now()
    // act
    await sendHttpJobs(
      bulk.queue.url,
      ids.map((id, i) => ({ id, payload: { url: `${bulk.receiver.url}/ok`, body: { n: i } } })),
    )
    await eventually(() => bulk.receiver.successes.size === ids.length, 170_000)
    await eventually(async () => (await approximateCount(sqs, bulk.queue.url)) === 0, 10_000)
    // assess
    const delivered = bulk.receiver.deliveries.filter((d) => d.id.startsWith('bulk-'))
    console.info(
      `10,000 deliveries in ${Math.round(performance.now() - started)} ms; bad signatures: ${bulk.receiver.badSignatures}`,
    )
    expect(bulk.receiver.badSignatures).toBe(0)
    expect(delivered).toHaveLength(ids.length)
    expect(ids.filter((id) => bulk.receiver.successes.get(id) !== 1)).toEqual([])
    expect(JSON.parse(delivered.find((d) => d.id === 'bulk-7')!.body)).toEqual({ n: 7 })
    expect(delivered[0]!.headers['content-type']).toBe('application/json')
    expect(await readDelivery(bulk.engine.redis, bulk.engine.keys, 'bulk-7')).toMatchObject({
      outcome: 'delivered',
      status: 200,
      attempts: 1,
      excerpt: 'ok bulk-7',
    })
  })

  it('retries a 503 no sooner than its Retry-After (2 s, over a 1 s backoff), then delivers', async () => {
    // prepare / act
    await sendHttpJobs(kit.queue.url, [{ id: 'busy-1', payload: { url: url('/busy') } }])
    await eventually(() => kit.receiver.successes.get('busy-1') === 1, 15_000)
    // assess
    const [first, second] = deliveriesOf('busy-1')
    expect(deliveriesOf('busy-1')).toHaveLength(2)
    expect(second!.at - first!.at).toBeGreaterThanOrEqual(1_900)
    expect(second!.headers['webhook-id']).toBe(first!.headers['webhook-id'])
    await eventually(async () => (await recordOf('busy-1'))?.outcome === 'delivered')
    expect(await recordOf('busy-1')).toMatchObject({ status: 200, attempts: 2 })
  })

  it('moves a job answered 400 to the DLQ after one call, with the status and body kept', async () => {
    // prepare / act
    await sendHttpJobs(kit.queue.url, [{ id: 'bad-1', payload: { url: url('/bad'), body: { orderId: 9 } } }])
    let dead: { body: string; reason?: string } | undefined
    await eventually(async () => {
      const out = await sqs.send(
        new ReceiveMessageCommand({
          QueueUrl: kit.queue.dlq.url,
          MessageAttributeNames: ['All'],
          VisibilityTimeout: 60,
        }),
      )
      const m = out.Messages?.find((x) => x.Body?.includes('"bad-1"'))
      if (m) dead = { body: m.Body!, reason: m.MessageAttributes?.[DEAD_LETTER_REASON_ATTRIBUTE]?.StringValue }
      return dead !== undefined
    }, 15_000)
    // assess
    expect(deliveriesOf('bad-1')).toHaveLength(1)
    expect(dead!.reason).toBe('answered 400')
    expect(await recordOf('bad-1')).toMatchObject({
      outcome: 'dead-lettered',
      status: 400,
      attempts: 1,
      excerpt: '{"error":"no such order"}',
      reason: 'answered 400',
    })
  })

  it('cuts a receiver that hangs at the timeout (3 s) and retries it', async () => {
    // prepare / act
    await sendHttpJobs(kit.queue.url, [{ id: 'hang-1', payload: { url: url('/hang') } }])
    await eventually(() => kit.receiver.successes.get('hang-1') === 1, 20_000)
    // assess: the second call came after the 3 s cut plus the 1 s backoff, long before the 30 s invocation deadline
    const [first, second] = deliveriesOf('hang-1')
    expect(deliveriesOf('hang-1')).toHaveLength(2)
    expect(second!.at - first!.at).toBeGreaterThanOrEqual(3_900)
    expect(second!.at - first!.at).toBeLessThan(15_000)
    await eventually(async () => (await recordOf('hang-1'))?.outcome === 'delivered')
    expect(await recordOf('hang-1')).toMatchObject({ status: 200, attempts: 2 })
  })

  it('calls the receiver once when SQS delivers a message again after its success, again for a job re-created under its id', async () => {
    // prepare: one message, received twice (a lost delete, a visibility that ran out, a scanner re-send)
    const body = jobBody('again-1', { url: url('/ok') })
    const receive = (n: number) =>
      toRecord(
        {
          MessageId: 'm-again',
          ReceiptHandle: `rh-again-${n}`,
          Body: body,
          Attributes: { ApproximateReceiveCount: String(n) },
        },
        kit.queue.arn,
      )
    // act
    const first = await kit.forwarder.handler({ Records: [receive(1)] }, lambdaContext({ budgetMs: 30_000 }))
    const second = await kit.forwarder.handler({ Records: [receive(2)] }, lambdaContext({ budgetMs: 30_000 }))
    // assess: both acknowledged, one call
    expect(first.batchItemFailures).toEqual([])
    expect(second.batchItemFailures).toEqual([])
    expect(deliveriesOf('again-1')).toHaveLength(1)
    expect(await recordOf('again-1')).toEqual(expect.objectContaining({ outcome: 'delivered', attempts: 1 }))
    expect(await recordOf('again-1')).not.toHaveProperty('of')
    // a job created again later under the same id is another job: called
    const later = Date.now() + 60_000
    const recreated = toRecord(
      {
        MessageId: 'm-again-2',
        ReceiptHandle: 'rh-again-new',
        Body: messageBody(
          {
            id: 'again-1',
            queue: TARGET,
            payloadJson: JSON.stringify({ url: url('/ok') }),
            dueMs: later,
            createdAtMs: later,
          },
          later,
        ),
        Attributes: { ApproximateReceiveCount: '1' },
      },
      kit.queue.arn,
    )
    await kit.forwarder.handler({ Records: [recreated] }, lambdaContext({ budgetMs: 30_000 }))
    expect(deliveriesOf('again-1')).toHaveLength(2)
  })

  it("bounds a call by the invocation's remaining time, not only by HTTP_TIMEOUT_MS", async () => {
    // prepare: a 2.6 s invocation; HTTP_TIMEOUT_MS is 3 s here, so a longer one would show: use a forwarder of 20 s
    const long = await startKit({ HTTP_TIMEOUT_MS: '20000' })
    try {
      const record = toRecord(
        {
          MessageId: 'm-deadline',
          ReceiptHandle: 'rh-deadline',
          Body: jobBody('deadline-1', { url: `${long.receiver.url}/hang` }),
          Attributes: { ApproximateReceiveCount: '1' },
        },
        long.queue.arn,
      )
      const started = performance.now()
      // act
      const answer = await long.forwarder.handler({ Records: [record] }, lambdaContext({ budgetMs: 2_600 }))
      const tookMs = performance.now() - started
      // assess: cut at remaining - 1.5 s (about 1.1 s), reported failed before the invocation's end
      expect(answer.batchItemFailures).toEqual([{ itemIdentifier: 'm-deadline' }])
      expect(tookMs).toBeLessThan(2_500)
      const kept = await readDelivery(long.engine.redis, long.engine.keys, 'deadline-1')
      expect(kept).toMatchObject({ outcome: 'retrying', attempts: 1 })
      expect(kept!.reason).toMatch(/^no complete answer within 1\d{3} ms$/)
    } finally {
      await long.close()
    }
  })
})
