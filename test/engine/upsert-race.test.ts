// Each onConflict mode racing the dispatch of the job it writes to, at its due time, with a scanner running: whatever
// the order, the write is applied to the stored job (one message: the write's payload, or with extend the stored
// one), or starts a new incarnation after SQS took the old one (two messages), or is refused while the old one is
// being sent (one message: the old one). Never a lost job, a duplicate, or a mix.
import { sleep } from '../../devkit/sleep'
import type { Message } from '@aws-sdk/client-sqs'
import { afterAll, describe, expect, it } from 'vitest'
import { DelayQueueError } from '../../src/errors'
import type { OnConflict } from '../../src/store/upsert-modes'
import { job, testStore } from '../support/engine'
import { testScanner } from '../support/scanner'
import { createQueue, receiveAll, sqsClient } from '../support/sqs'

const t = testStore({ buckets: 16 })
const sqs = sqsClient()
afterAll(async () => {
  sqs.destroy()
  await t.close()
})
/** The payloads SQS got for `id`, sorted: a standard queue keeps no order. */
const payloads = (messages: Message[], id: string) =>
  messages
    .map((m) => JSON.parse(m.Body!))
    .filter((b) => b.id === id)
    .map((b) => b.payload)
    .sort()

describe('each onConflict mode racing the dispatch at the due time', () => {
  it.each(['reject', 'replace', 'extend', 'debounce'] as const)('%s', async (onConflict: OnConflict) => {
    // prepare
    const { url } = await createQueue(sqs, `race-${onConflict}`)
    const s = testScanner(t, { queues: { rq: url }, pollIntervalMs: 50 })
    const outcomes: { id: string; answer: string }[] = []
    // Done once every write was answered and, read after that, nothing is pending: a stats read from before the last
    // write would miss the incarnation that write created.
    const run = s.runUntil(
      async () => outcomes.length === 6 && (await t.store.stats()).queues.rq?.pending === 0,
      30_000,
    )
    for (let i = 0; i < 6; i++) {
      const id = `race-${onConflict}-${i}`
      const first = await t.store.enqueue(job({ id, queue: 'rq', payloadJson: '"old"', due: { delayMs: 150 } }))
      // act: the write lands from 20 ms before the due time to 30 ms after it
      const at = first.dueMs - 20 + i * 10
      while (Date.now() < at) await sleep(1)
      const write = job({ id, queue: 'rq', payloadJson: '"new"', due: { delayMs: 100 }, onConflict })
      const answer = await t.store
        .enqueue(onConflict === 'debounce' ? { ...write, maxWaitMs: 10_000 } : write)
        .then((r) => r.status)
        .catch((e) => (e instanceof DelayQueueError ? e.code : Promise.reject(e)))
      outcomes.push({ id, answer })
    }
    await run
    await s.close()
    // assess
    const messages = await receiveAll(sqs, url)
    for (const { id, answer } of outcomes) {
      const expected =
        answer === 'created'
          ? ['new', 'old']
          : answer === 'replaced'
            ? [onConflict === 'extend' ? 'old' : 'new']
            : ['old']
      expect({ id, answer, sent: payloads(messages, id) }).toEqual({ id, answer, sent: expected })
    }
  })
})
