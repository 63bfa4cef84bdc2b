// The shipped forwarder end to end on loopback: fauxqs, the forwarder behind the local event source mapping, a receiver
// that verifies every delivery with the `standardwebhooks` package. 2xx is done once; 503 with Retry-After is retried
// no sooner than it asks; a 400 goes to the DLQ after one call; a receiver that hangs is cut at the timeout and retried.
// Each call's outcome is kept beside the job's receipt.
import { ReceiveMessageCommand } from '@aws-sdk/client-sqs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
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
  kit = await startKit()
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
    // prepare
    const ids = Array.from({ length: 10_000 }, (_, i) => `bulk-${i}`)
    const started = performance.now()
    // act
    await sendHttpJobs(
      kit.queue.queueUrl,
      ids.map((id, i) => ({ id, payload: { url: url('/ok'), body: { n: i } } })),
    )
    await eventually(() => kit.receiver.successes.size === ids.length, 170_000)
    await eventually(async () => (await approximateCount(sqs, kit.queue.queueUrl)) === 0, 10_000)
    // assess
    const bulk = kit.receiver.deliveries.filter((d) => d.id.startsWith('bulk-'))
    console.info(
      `10,000 deliveries in ${Math.round(performance.now() - started)} ms; bad signatures: ${kit.receiver.badSignatures}`,
    )
    expect(kit.receiver.badSignatures).toBe(0)
    expect(bulk).toHaveLength(ids.length)
    expect(ids.filter((id) => kit.receiver.successes.get(id) !== 1)).toEqual([])
    expect(JSON.parse(bulk.find((d) => d.id === 'bulk-7')!.body)).toEqual({ n: 7 })
    expect(bulk[0]!.headers['content-type']).toBe('application/json')
    expect(await recordOf('bulk-7')).toMatchObject({
      outcome: 'delivered',
      status: 200,
      attempts: 1,
      excerpt: 'ok bulk-7',
    })
  })

  it('retries a 503 no sooner than its Retry-After (2 s, over a 1 s backoff), then delivers', async () => {
    // prepare / act
    await sendHttpJobs(kit.queue.queueUrl, [{ id: 'busy-1', payload: { url: url('/busy') } }])
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
    await sendHttpJobs(kit.queue.queueUrl, [{ id: 'bad-1', payload: { url: url('/bad'), body: { orderId: 9 } } }])
    let dead: { body: string; reason?: string } | undefined
    await eventually(async () => {
      const out = await sqs.send(
        new ReceiveMessageCommand({
          QueueUrl: kit.queue.dlq.queueUrl,
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

  it('cuts a receiver that hangs at the timeout (1 s) and retries it', async () => {
    // prepare / act
    await sendHttpJobs(kit.queue.queueUrl, [{ id: 'hang-1', payload: { url: url('/hang') } }])
    await eventually(() => kit.receiver.successes.get('hang-1') === 1, 15_000)
    // assess: the second call came after the 1 s cut plus the 1 s backoff, long before the 30 s invocation deadline
    const [first, second] = deliveriesOf('hang-1')
    expect(deliveriesOf('hang-1')).toHaveLength(2)
    expect(second!.at - first!.at).toBeGreaterThanOrEqual(1_900)
    expect(second!.at - first!.at).toBeLessThan(10_000)
    await eventually(async () => (await recordOf('hang-1'))?.outcome === 'delivered')
    expect(await recordOf('hang-1')).toMatchObject({ status: 200, attempts: 2 })
  })

  it("bounds a call by the invocation's remaining time, not only by HTTP_TIMEOUT_MS", async () => {
    // prepare: a 2.6 s invocation; HTTP_TIMEOUT_MS is 1 s here, so a longer one would show: use a forwarder of 20 s
    const long = await startKit({ HTTP_TIMEOUT_MS: '20000' })
    try {
      const record = toRecord(
        {
          MessageId: 'm-deadline',
          ReceiptHandle: 'rh-deadline',
          Body: jobBody('deadline-1', { url: `${long.receiver.url}/hang` }),
          Attributes: { ApproximateReceiveCount: '1' },
        },
        long.queue.queueArn,
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
