// A SendMessageBatch whose answer stalls after its headers (SQS or a proxy sends 200 and then nothing) must not hold
// the scanner's lane: the smithy handler stops its requestTimeout once the headers arrive, so the send itself is
// bounded (maxSendMs: every SDK attempt, the body included). The stalled send ends as maybe sent (SQS took it), its
// jobs are released for a retry and delivered. A FIFO lane sends one batch at a time: unbounded, the stall would keep
// the group's jobs (and their reclaims after the lease) out of SQS for good. Real parts: Redis, fauxqs, the fault proxy.
import { afterAll, describe, expect, inject, it, onTestFinished } from 'vitest'
import { SQS_SDK_ATTEMPTS, sendTimeoutMs } from '../../src/sqs/sqs-client'
import { job, testStore } from '../support/engine'
import { testScanner } from '../support/scanner'
import { createQueue, drainInOrder, sqsClient } from '../support/sqs'
import { startSqsFaultProxy } from '../support/sqs-fault-proxy'

const sqs = sqsClient()
afterAll(() => sqs.destroy())

const LEASE_MS = 5_000
/** The scanner's bound on one send (src/scan/create-scanner.ts): 2.5 s with this lease. */
const MAX_SEND_MS = SQS_SDK_ATTEMPTS * sendTimeoutMs(LEASE_MS)

describe('a send whose answer stalls after its headers', () => {
  it('ends within the send bound as maybe sent, and the FIFO group is delivered in order by its retry', async () => {
    // prepare: two jobs of one FIFO group; the first SendMessageBatch is carried out and its answer stalls
    const t = testStore({ shards: 1 })
    const q = await createQueue(sqs, 'stalled.fifo')
    const proxy = await startSqsFaultProxy({ target: inject('sqsEndpoint') })
    const sent: string[] = []
    const scanner = testScanner(t, {
      queues: { 'stalled.fifo': q.url },
      sqsEndpoint: proxy.url,
      leaseMs: LEASE_MS,
      backoffBaseMs: 20,
      backoffMaxMs: 200,
      onSent: (j) => sent.push(j.id),
    })
    // The proxy goes first: closing it ends a stall that is still going (the test fails, and does not hang).
    onTestFinished(async () => {
      await proxy.close()
      await scanner.close()
      await t.close()
    })
    proxy.stallAnswers(1)
    const first = job({ id: 'stall-1', queue: 'stalled.fifo', groupId: 'g' })
    const second = job({ id: 'stall-2', queue: 'stalled.fifo', groupId: 'g', due: { delayMs: 1 } })
    await t.store.enqueueMany([first, second])
    // act
    const startedAt = Date.now()
    const report = await scanner.runUntil(() => sent.length >= 2, 4 * MAX_SEND_MS)
    const tookMs = Date.now() - startedAt
    // assess: the stalled send ended after its bound (not the lease, not the run's end), its jobs were released
    // (maybe sent) and sent again; SQS holds each once (the retry has the same deduplication id), in group order
    expect(proxy.stats.answersStalled).toBe(1)
    expect(sent).toEqual(['stall-1', 'stall-2'])
    expect(report.released).toBe(2)
    expect(tookMs).toBeLessThan(MAX_SEND_MS + 2_500)
    const arrived = (await drainInOrder(sqs, q.url)).map((m) => (JSON.parse(m.Body!) as { id: string }).id)
    expect(arrived).toEqual(['stall-1', 'stall-2'])
  }, 30_000)
})
