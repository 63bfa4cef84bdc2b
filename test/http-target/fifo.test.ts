// An HTTP target queue whose SQS queue is FIFO (its name ends in .fifo), from the API to the receiver on loopback: jobs
// are checked at enqueue as on any FIFO queue, the scanner hands them to SQS in their groups, and the forwarder
// calls each group's URLs in order; a call answered 503 holds the rest of its group (not other groups) until it is
// delivered, through SQS FIFO and the consumer toolkit's retries.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { messageBody } from '../../src/sqs/envelope'
import { readDelivery } from '../../src/store/delivery-record'
import { toRecord } from '../../tools/sdq-poll/sqs-poller'
import { lambdaContext } from '../support/lambda'
import { bodyOf, request, testApi } from '../api/api-helpers'
import { eventually } from '../support/eventually'
import { startKit, type Kit } from './forwarder-kit'

const TARGET = 'partner.fifo'
let kit: Kit
let api: ReturnType<typeof testApi>
beforeAll(async () => {
  kit = await startKit({}, {}, TARGET)
  kit.poll(2)
  kit.scan()
  api = testApi({}, kit.engine)
})
afterAll(() => kit?.close())

const url = (path: string) => `${kit.receiver.url}${path}`
/** Enqueues through the API, due now; its answer. */
const post = (id: string, payload: unknown, groupId?: string, delayMs = 0) =>
  api.call(request('POST', '/jobs', { body: { queue: TARGET, id, payload, delayMs, ...(groupId ? { groupId } : {}) } }))
/** The calls the receiver got for these ids (each job id once per call), in the order it got them. */
const callsOf = (ids: string[]) => kit.receiver.deliveries.filter((d) => ids.includes(d.id)).map((d) => d.id)
const delivered = (id: string) => (kit.receiver.successes.get(id) ?? 0) > 0

/** Enqueues `jobs` of one group in order, each due 5 ms after the one before (the group's order is the due order). */
async function enqueueGroup(groupId: string, jobs: [id: string, path: string][]) {
  for (const [n, [id, path]] of jobs.entries()) {
    expect((await post(id, { url: url(path), body: { id } }, groupId, n * 5)).statusCode).toBe(201)
  }
}

describe('an HTTP target queue on a FIFO queue', () => {
  it('checks jobs at enqueue as on any FIFO queue: the groupId rules, and the request rules as well', async () => {
    const later = 3_600_000
    // a group id as SQS takes it, kept with the job
    const grouped = await post('enq-1', { url: url('/ok') }, 'order-1', later)
    expect(grouped.statusCode).toBe(201)
    expect(bodyOf(grouped)).toMatchObject({ id: 'enq-1', groupId: 'order-1' })
    // none: by design the job is a group of its own (MessageGroupId = its id), as on any FIFO queue
    expect((await post('enq-2', { url: url('/ok') }, undefined, later)).statusCode).toBe(201)
    // one SQS would refuse: 400 naming the field, nothing stored
    const bad = await post('enq-3', { url: url('/ok') }, 'has space', later)
    expect(bad.statusCode).toBe(400)
    expect(JSON.stringify(bodyOf(bad))).toContain('groupId')
    // the HTTP request is checked on a FIFO target queue too
    const noUrl = await post('enq-4', { body: {} }, 'order-1', later)
    expect(noUrl.statusCode).toBe(400)
    expect(JSON.stringify(bodyOf(noUrl))).toContain('payload.url')
    expect(await kit.engine.store.get('enq-3')).toBeNull()
    expect(await kit.engine.store.get('enq-4')).toBeNull()
  })

  it("calls a group's URLs in the order of its jobs", async () => {
    // prepare
    const ids = ['in-1', 'in-2', 'in-3', 'in-4', 'in-5']
    // act
    await enqueueGroup(
      'order-in',
      ids.map((id) => [id, '/ok']),
    )
    await eventually(() => ids.every(delivered), 20_000)
    // assess: one call each, in order
    expect(callsOf(ids)).toEqual(ids)
  })

  it("holds a group's later jobs behind a call answered 503 until it is delivered, and not other groups", async () => {
    // prepare: held-2's receiver answers 503 (Retry-After: 1) until the gate opens
    const held = ['held-1', 'held-2', 'held-3', 'held-4']
    const other = ['free-1', 'free-2']
    // act
    await enqueueGroup('order-held', [
      ['held-1', '/ok'],
      ['held-2', '/gate'],
      ['held-3', '/ok'],
      ['held-4', '/ok'],
    ])
    await enqueueGroup('order-free', [
      ['free-1', '/ok'],
      ['free-2', '/ok'],
    ])
    // held-2 retried once at least, while the other group went through
    await eventually(() => callsOf(['held-2']).length >= 2 && other.every(delivered), 20_000)
    const whileHeld = callsOf(held)
    kit.receiver.openGate()
    await eventually(() => held.every(delivered), 20_000)
    // assess: nothing after held-2 was called while it was retried; then the rest in order, each once
    expect(whileHeld.filter((id) => id !== 'held-2')).toEqual(['held-1'])
    const calls = callsOf(held)
    const retries = calls.filter((id) => id === 'held-2').length
    expect(calls).toEqual(['held-1', ...Array(retries).fill('held-2'), 'held-3', 'held-4'])
    expect(await readDelivery(kit.engine.redis, kit.engine.keys, 'held-2')).toMatchObject({
      outcome: 'delivered',
      status: 200,
      attempts: retries,
    })
    expect(kit.receiver.badSignatures).toBe(0)
  })

  it('stops a group at its 503 within one batch, as AWS hands several messages of a group at once', async () => {
    // prepare: one batch of a group (fauxqs hands out one message per group per receive, so it is built here);
    // batch-2's first call is answered 503
    const now = Date.now()
    const record = (n: number, path: string) =>
      toRecord(
        {
          MessageId: `m-batch-${n}`,
          ReceiptHandle: `rh-batch-${n}`,
          Body: messageBody(
            {
              id: `batch-${n}`,
              queue: TARGET,
              payloadJson: JSON.stringify({ url: url(path) }),
              dueMs: now,
              createdAtMs: now,
            },
            now,
          ),
          Attributes: { ApproximateReceiveCount: '1', MessageGroupId: 'order-batch', SequenceNumber: String(n) },
        },
        kit.queue.arn,
      )
    // act
    const answer = await kit.forwarder.handler(
      { Records: [record(1, '/ok'), record(2, '/busy'), record(3, '/ok')] },
      lambdaContext({ budgetMs: 30_000 }),
    )
    // assess: batch-3 not called, and given back to SQS with batch-2 (SQS then keeps the group's order)
    expect(callsOf(['batch-1', 'batch-2', 'batch-3'])).toEqual(['batch-1', 'batch-2'])
    expect(answer.batchItemFailures).toEqual([{ itemIdentifier: 'm-batch-2' }, { itemIdentifier: 'm-batch-3' }])
  })
})
