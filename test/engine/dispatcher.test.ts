// The dispatcher against a real SQS endpoint: full batches when slots are busy, FIFO order within a group.
import { DeleteMessageCommand, ReceiveMessageCommand } from '@aws-sdk/client-sqs'
import { afterAll, describe, expect, it } from 'vitest'
import { Dispatcher } from '../../src/scan/dispatch/dispatcher'
import { claimedJob } from '../support/claimed-job'
import { createSqsClient } from '../../src/sqs/sqs-client'
import { approximateCount, countIds, createQueue, receiveAll, sqsClient } from '../support/sqs'
import { inject } from 'vitest'

const sqs = sqsClient()
const sender = createSqsClient({ region: 'us-east-1', sqsEndpoint: inject('sqsEndpoint'), sendConcurrency: 4 })
let calls = 0
sender.middlewareStack.add((next) => async (args) => {
  calls++
  return next(args)
})
afterAll(() => {
  sqs.destroy()
  sender.destroy()
})

const claimed = (id: string, queue: string, groupId?: string) => {
  const now = Date.now()
  return claimedJob(id, {
    queue,
    groupId,
    payloadJson: JSON.stringify({ id }),
    dueMs: now,
    orderMs: now,
    claimedAtMs: now,
    leaseDeadline: now + 30_000,
  })
}

/** A dispatcher through the counting client, with SQS's own batch byte limit and a 1 s send budget. */
const dispatcherTo = (queues: Record<string, string>, concurrency: number) =>
  new Dispatcher({ sqs: sender, queues, concurrency, maxBatchBytes: 1_048_576, maxSendMs: 1_000 })

describe('dispatcher', () => {
  it('merges jobs of many claims into full batches while every send slot is busy', async () => {
    // prepare: one send slot; 21 claims of one job each arrive at once
    const q = await createQueue(sqs, 'merge')
    const dispatcher = dispatcherTo({ orders: q.url }, 1)
    calls = 0
    // act
    const outcomes = await Promise.all(
      Array.from({ length: 21 }, (_, i) => dispatcher.dispatch([claimed(`m-${i}`, 'orders')])),
    )
    // assess: the first went alone, the other 20 waited and left as two full batches
    expect(calls).toBe(3)
    expect(outcomes.every((o) => o.sent.length === 1 && o.refused.length === 0)).toBe(true)
    expect(countIds(await receiveAll(sqs, q.url)).size).toBe(21)
  })

  it('keeps a FIFO group in claim order across claims, with sends in flight', async () => {
    // prepare
    const q = await createQueue(sqs, 'ordered.fifo')
    const dispatcher = dispatcherTo({ 'ordered.fifo': q.url }, 4)
    const ids = Array.from({ length: 30 }, (_, i) => `f-${String(i).padStart(2, '0')}`)
    // act: three claims of ten, dispatched without waiting for one another
    await Promise.all(
      [0, 10, 20].map((at) =>
        dispatcher.dispatch(ids.slice(at, at + 10).map((id) => claimed(id, 'ordered.fifo', 'g1'))),
      ),
    )
    // assess: one group delivers one message at a time, in order
    const seen: string[] = []
    for (let i = 0; i < ids.length; i++) {
      const r = await sqs.send(new ReceiveMessageCommand({ QueueUrl: q.url, MaxNumberOfMessages: 10 }))
      for (const m of r.Messages ?? []) {
        seen.push(JSON.parse(m.Body!).id)
        await sqs.send(new DeleteMessageCommand({ QueueUrl: q.url, ReceiptHandle: m.ReceiptHandle! }))
      }
    }
    expect(seen).toEqual(ids)
  })

  it('reports every job of a batch as refused when the call fails, and never as sent', async () => {
    const dispatcher = dispatcherTo({ gone: `${inject('sqsEndpoint')}/000000000000/does-not-exist` }, 2)
    const outcome = await dispatcher.dispatch([claimed('x-1', 'gone'), claimed('x-2', 'gone')])
    expect(outcome.sent).toEqual([])
    expect(outcome.refused.map((r) => r.job.id).sort()).toEqual(['x-1', 'x-2'])
    expect(outcome.refused[0]!.error).toMatch(/SendMessageBatch failed|SQS refused/)
  })
  it('does not send a job whose lease would end during the send, and reports it refused for a retry', async () => {
    // prepare: one job still well leased, one whose lease ends before a send could finish
    const q = await createQueue(sqs, 'stale')
    const dispatcher = dispatcherTo({ orders: q.url }, 2)
    calls = 0
    const stale = { ...claimed('stale-1', 'orders'), leaseDeadline: Date.now() + 500 }
    // act
    const outcome = await dispatcher.dispatch([claimed('fresh-1', 'orders'), stale])
    // assess
    expect(outcome.sent.map((s) => s.job.id)).toEqual(['fresh-1'])
    expect(outcome.refused).toEqual([
      { job: stale, error: expect.stringMatching(/lease would have ended/), jobsFault: false },
    ])
    expect([...countIds(await receiveAll(sqs, q.url)).keys()]).toEqual(['fresh-1'])
    expect(calls).toBe(1)
  })

  it('gives back a job whose rate token went stale before its send started, and sends the one still fresh', async () => {
    // prepare: two jobs of a limited key let go by its bucket: one a moment ago, one whose token is past its time
    // (it waited behind a slow SQS); both well leased
    const q = await createQueue(sqs, 'stale-token')
    const dispatcher = dispatcherTo({ orders: q.url }, 2)
    calls = 0
    const fresh = { ...claimed('token-fresh', 'orders'), sendBy: Date.now() + 100 }
    const late = { ...claimed('token-late', 'orders'), sendBy: Date.now() - 1 }
    // act
    const outcome = await dispatcher.dispatch([fresh, late])
    // assess: the late one is not sent, refused for a retry that asks the bucket again (not its fault)
    expect(outcome.sent.map((s) => s.job.id)).toEqual(['token-fresh'])
    expect(outcome.refused).toEqual([
      { job: late, error: expect.stringMatching(/rate token was not used in time/), jobsFault: false },
    ])
    expect([...countIds(await receiveAll(sqs, q.url)).keys()]).toEqual(['token-fresh'])
  })

  it('keeps a FIFO group in order when SQS refuses one of its jobs: the later ones still waiting are held back behind it', async () => {
    // prepare: one group of 25 jobs (three batches), the second too big for the queue, and another group alongside
    const q = await createQueue(sqs, 'partial.fifo', { MaximumMessageSize: '1024' })
    const dispatcher = dispatcherTo({ 'p.fifo': q.url }, 1)
    const group = Array.from({ length: 25 }, (_, i) => claimed(`g1-${String(i).padStart(2, '0')}`, 'p.fifo', 'g1'))
    group[1] = { ...group[1]!, payloadJson: JSON.stringify({ pad: 'x'.repeat(2_000) }) }
    const other = Array.from({ length: 5 }, (_, i) => claimed(`g2-${i}`, 'p.fifo', 'g2'))
    // act
    const outcome = await dispatcher.dispatch([...group, ...other])
    // assess: the refused job, then the 15 not yet sent, each behind it in its place; the rest of its batch went out
    const refused = new Map(outcome.refused.map((r) => [r.job.id, r]))
    expect(refused.get('g1-01')).toMatchObject({ jobsFault: true, error: expect.stringMatching(/SQS refused/) })
    const heldBack = group.slice(10).map((j) => refused.get(j.id))
    expect(heldBack.map((r) => [r?.jobsFault, r?.after?.job.id, r?.after?.place])).toEqual(
      group.slice(10).map((_, i) => [false, 'g1-01', i + 1]),
    )
    expect(heldBack[0]!.error).toMatch(/not sent: job "g1-01" of its FIFO group was not accepted/)
    expect(outcome.sent.map((s) => s.job.id).sort()).toEqual(
      [group[0]!.id, ...group.slice(2, 10).map((j) => j.id), ...other.map((j) => j.id)].sort(),
    )
    expect(await approximateCount(sqs, q.url)).toBe(14)
  })
  it('warms an idle connection with one empty batch per SQS endpoint, and not while its sends keep it warm', async () => {
    // prepare: two target queues on the one local endpoint
    const [a, b] = [await createQueue(sqs, 'warm-a'), await createQueue(sqs, 'warm-b')]
    const idle = dispatcherTo({ orders: a.url, emails: b.url }, 2)
    const busy = dispatcherTo({ orders: a.url, emails: b.url }, 2)
    await busy.dispatch([claimed('w-1', 'orders')])
    calls = 0
    // act
    await idle.warm()
    await idle.warm()
    await busy.warm()
    // assess: one call for the idle dispatcher (then it is warm), none for the one that just sent; nothing queued
    expect(calls).toBe(1)
    expect(await approximateCount(sqs, a.url)).toBe(1)
    expect(await approximateCount(sqs, b.url)).toBe(0)
  })
})
