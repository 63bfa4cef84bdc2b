// The stage of the recurring-schedule scenarios: a store, a target queue ("orders") on the SQS endpoint and a
// DelayQueue sending to it, with what every scenario asks of them: scanners sending there, a schedule every second,
// its run count, the messages that arrived, an occurrence's dispatch receipt.
import type { SQSClient } from '@aws-sdk/client-sqs'
import { JobStore } from '../../src/store/job-store'
import { NO_REPLICA_WAIT } from '../../src/store/redis/replication'
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

/** How long a scanner given `receiptTtlMs: RECEIPT_TTL_MS` keeps receipts, and how far back `receipt()` looks. */
export const RECEIPT_TTL_MS = 86_400_000

export async function seriesStage(sqs: SQSClient, queueName: string, layout: Parameters<typeof testStore>[0] = {}) {
  const t = testStore(layout)
  const queue = await createQueue(sqs, queueName)
  const q = testQueue(t, { orders: queue.url })
  const scanners: ReturnType<typeof testScanner>[] = []
  const receipts = new JobStore(t.redis, t.keys, undefined, NO_REPLICA_WAIT, RECEIPT_TTL_MS)
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
    /**
     * A sent occurrence's dispatch receipt (attempts, acceptance, and its creation time: its predecessor's ack), from
     * a scanner given `receiptTtlMs: RECEIPT_TTL_MS`; null without one.
     */
    receipt: (id: string) => receipts.get(id),
    /**
     * The messages as series steps, sorted by occurrence time, each with its receipt's creation time (its
     * predecessor's ack), acceptance and attempts: what `seriesFaults` and `describeSeries` read.
     */
    steps: (sent: readonly SentOccurrence[]) =>
      Promise.all(
        [...sent]
          .sort((a, b) => Date.parse(a.occurrenceAt) - Date.parse(b.occurrenceAt))
          .map(async (b) => {
            const receipt = await receipts.get(b.id)
            return {
              id: b.id,
              atMs: Date.parse(b.occurrenceAt),
              createdAtMs: Date.parse(receipt?.createdAt ?? ''),
              acceptedAtMs: Date.parse(receipt?.acceptedAt ?? ''),
              attempts: receipt?.attempts,
            }
          }),
      ),
    async close() {
      for (const s of scanners) await s.close()
      await t.close()
    },
  }
}
