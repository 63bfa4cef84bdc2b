// The stage of the recurring-schedule scenarios: a store, a target queue ("orders") on the SQS endpoint and a
// DelayQueue sending to it, with what every scenario asks of them: scanners sending there, a schedule every second,
// its run count, the messages that arrived.
import type { SQSClient } from '@aws-sdk/client-sqs'
import { testStore } from './engine'
import { testScanner, type TestScannerOptions } from './scanner'
import { testQueue } from './schedules'
import { createQueue, receiveAll } from './sqs'

/** An occurrence's message body, as the consumers read it (src/sqs/envelope.ts). */
export type SentOccurrence = { id: string; scheduleId: string; occurrenceAt: string; runAt: string; payload: unknown }

/**
 * The next whole second at least 1 s away: occurrence times easy to read in failures. The lead covers the schedule's
 * put: on a loaded machine a put answered 300 ms later found its start passed, and the series began a second later.
 */
export const wholeSecond = () => Math.ceil((Date.now() + 1_000) / 1000) * 1000

export async function seriesStage(sqs: SQSClient, queueName: string, layout: Parameters<typeof testStore>[0] = {}) {
  const t = testStore(layout)
  const queue = await createQueue(sqs, queueName)
  const q = testQueue(t, { orders: queue.url })
  const scanners: ReturnType<typeof testScanner>[] = []
  return {
    t,
    queue,
    q,
    /** A scanner sending to the stage's queue (closed with the stage). */
    scanner(options: Partial<TestScannerOptions> = {}) {
      const s = testScanner(t, { queues: { orders: queue.url }, ...options })
      scanners.push(s)
      return s
    },
    everySecond: (id: string, startAt: number, more: { payload?: unknown; endAt?: number } = {}) =>
      q.putSchedule(id, { queue: 'orders', payload: 1, everyMs: 1000, startAt, ...more }),
    runs: async (id: string) => (await q.getSchedule(id))?.runs ?? 0,
    /** The messages on the queue that no earlier call received. */
    received: async () => (await receiveAll(sqs, queue.url)).map((m) => JSON.parse(m.Body!) as SentOccurrence),
    async close() {
      for (const s of scanners) await s.close()
      await t.close()
    },
  }
}
