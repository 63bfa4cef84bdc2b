// FIFO deduplication ids are unique per incarnation of a job: a job created again under an id that was dispatched
// before reaches the queue again inside SQS's 5-minute deduplication window (fauxqs keeps one), while a scanner's
// re-send of the same version is still swallowed by it.
import { afterAll, describe, expect, it } from 'vitest'
import { Dispatcher } from '../../src/scan/dispatch/dispatcher'
import { job, testStore } from '../support/engine'
import { pendingCount, testScanner } from '../support/scanner'
import { createQueue, drainInOrder, sqsClient } from '../support/sqs'

const sqs = sqsClient()
afterAll(() => sqs.destroy())

const payloads = (messages: { Body?: string }[]) => messages.map((m) => JSON.parse(m.Body!).payload)

describe('FIFO deduplication ids', () => {
  it('delivers a job re-created under a dispatched id, by POST and by a PUT that creates, within 5 minutes', async () => {
    // prepare: "recreate-X" was dispatched to a FIFO queue a moment ago
    const t = testStore()
    const q = await createQueue(sqs, 'events.fifo')
    const s = testScanner(t, { queues: { 'events.fifo': q.url } })
    const fifoJob = (payload: string) => job({ id: 'recreate-X', queue: 'events.fifo', payloadJson: `"${payload}"` })
    const dispatched = () => s.runUntil(async () => (await pendingCount(t.store)) === 0, 5_000)
    await t.store.enqueue(fifoJob('first'))
    await dispatched()
    // act: created again, twice, each time after the one before was dispatched
    await t.store.enqueue(fifoJob('posted again'))
    await dispatched()
    expect((await t.store.upsert(fifoJob('put again'))).status).toBe('created')
    await dispatched()
    // assess: all three incarnations arrived, in order
    expect(payloads(await drainInOrder(sqs, q.url))).toEqual(['first', 'posted again', 'put again'])
    expect((await t.store.stats()).queues['events.fifo']!.dispatched).toBe(3)
    await s.close()
    await t.close()
  })

  it("still deduplicates a scanner's re-send of the same version", async () => {
    // prepare: one job claimed, as a scanner that sent it and died before its ack would leave it for the next one
    const t = testStore({ shards: 1 })
    const q = await createQueue(sqs, 'resend.fifo')
    const s = testScanner(t, { queues: { 'resend.fifo': q.url } })
    await t.store.enqueue(job({ id: 'resent', queue: 'resend.fifo', payloadJson: '"once"' }))
    const shard = t.keys.shards[0]!
    const { jobs } = await s.leases.claim(shard, await s.leases.seedHints(shard, 10), 10)
    const dispatcher = new Dispatcher({
      sqs: s.sqs,
      queues: { 'resend.fifo': q.url },
      concurrency: 1,
      maxBatchBytes: 1_048_576,
      maxSendMs: 1_000,
    })
    // act: the same claimed version is sent twice
    const first = await dispatcher.dispatch(jobs)
    const again = await dispatcher.dispatch(jobs)
    // assess: SQS accepted both calls and holds one message
    expect([first.sent.length, again.sent.length]).toEqual([1, 1])
    expect(payloads(await drainInOrder(sqs, q.url))).toEqual(['once'])
    await s.close()
    await t.close()
  })
})
