// The dispatcher against a real SQS endpoint: full batches when slots are busy, FIFO order within a group.
import { DeleteMessageCommand, ReceiveMessageCommand } from '@aws-sdk/client-sqs'
import { afterAll, describe, expect, it } from 'vitest'
import { Dispatcher } from '../../src/scan/dispatcher'
import type { ClaimedJob } from '../../src/scan/leases'
import { createSqsClient } from '../../src/sqs/client'
import { countIds, createQueue, receiveAll, sqsClient } from '../support/sqs'
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

const claimed = (id: string, queue: string, groupId?: string): ClaimedJob => ({
  id, queue, groupId, payloadJson: JSON.stringify({ id }), createdAtMs: 0, version: 0,
  dueMs: Date.now(), attempt: 1, token: 't', shard: 0, leaseDeadline: Date.now() + 30_000,
})

describe('dispatcher', () => {
  it('merges jobs of many claims into full batches while every send slot is busy', async () => {
    // prepare: one send slot; 21 claims of one job each arrive at once
    const q = await createQueue(sqs, 'merge')
    const dispatcher = new Dispatcher({ sqs: sender, queues: { orders: q.url }, concurrency: 1, maxBatchBytes: 1_048_576, maxSendMs: 1_000 })
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
    const dispatcher = new Dispatcher({ sqs: sender, queues: { 'ordered.fifo': q.url }, concurrency: 4, maxBatchBytes: 1_048_576, maxSendMs: 1_000 })
    const ids = Array.from({ length: 30 }, (_, i) => `f-${String(i).padStart(2, '0')}`)
    // act: three claims of ten, dispatched without waiting for one another
    await Promise.all([0, 10, 20].map((at) => dispatcher.dispatch(ids.slice(at, at + 10).map((id) => claimed(id, 'ordered.fifo', 'g1')))))
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
    const dispatcher = new Dispatcher({ sqs: sender, queues: { gone: `${inject('sqsEndpoint')}/000000000000/does-not-exist` }, concurrency: 2, maxBatchBytes: 1_048_576, maxSendMs: 1_000 })
    const outcome = await dispatcher.dispatch([claimed('x-1', 'gone'), claimed('x-2', 'gone')])
    expect(outcome.sent).toEqual([])
    expect(outcome.refused.map((r) => r.job.id).sort()).toEqual(['x-1', 'x-2'])
    expect(outcome.refused[0]!.error).toMatch(/SendMessageBatch failed|SQS refused/)
  })
  it('does not send a job whose lease would end during the send, and reports it refused for a retry', async () => {
    // prepare: one job still well leased, one whose lease ends before a send could finish
    const q = await createQueue(sqs, 'stale')
    const dispatcher = new Dispatcher({ sqs: sender, queues: { orders: q.url }, concurrency: 2, maxBatchBytes: 1_048_576, maxSendMs: 1_000 })
    calls = 0
    const stale = { ...claimed('stale-1', 'orders'), leaseDeadline: Date.now() + 500 }
    // act
    const outcome = await dispatcher.dispatch([claimed('fresh-1', 'orders'), stale])
    // assess
    expect(outcome.sent.map((s) => s.job.id)).toEqual(['fresh-1'])
    expect(outcome.refused).toEqual([{ job: stale, error: expect.stringMatching(/lease would have ended/), jobsFault: false }])
    expect([...countIds(await receiveAll(sqs, q.url)).keys()]).toEqual(['fresh-1'])
    expect(calls).toBe(1)
  })
})
