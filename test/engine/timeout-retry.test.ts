// A job whose sends only time out (SQS takes every call, and every answer comes too late) is not at fault: however
// many of its attempts time out, it never moves to the dead set, and it is delivered once answers are quick again.
// MAX_DISPATCH_ATTEMPTS counts refusals that are the job's own fault and expired leases, never timeouts.
// Real parts: Redis, fauxqs, the fault proxy holding each SendMessageBatch longer than the longest call.
import { afterAll, describe, expect, inject, it, onTestFinished } from 'vitest'
import { maxSendMs } from '../../src/sqs/sqs-client'
import { job, testStore } from '../support/engine'
import { testScanner } from '../support/scanner'
import { createQueue, sqsClient } from '../support/sqs'
import { startSqsFaultProxy } from '../support/sqs-fault-proxy'
import { eventually } from '../support/eventually'

const sqs = sqsClient()
afterAll(() => sqs.destroy())

const LEASE_MS = 2_000
const MAX_ATTEMPTS = 2

describe('sends that only time out', () => {
  it(`never dead-letter a job, even after more than MAX_DISPATCH_ATTEMPTS (${MAX_ATTEMPTS}) of them`, async () => {
    // prepare: every call reaches SQS only after the longest wait the lease allows
    const t = testStore({ shards: 1 })
    const q = await createQueue(sqs, 'timeouts')
    const proxy = await startSqsFaultProxy({ target: inject('sqsEndpoint') })
    proxy.setBatchDelay(maxSendMs(LEASE_MS) + 1_000)
    const sent: string[] = []
    const scanner = testScanner(t, {
      queues: { timeouts: q.url },
      sqsEndpoint: proxy.url,
      leaseMs: LEASE_MS,
      maxAttempts: MAX_ATTEMPTS,
      backoffBaseMs: 20,
      backoffMaxMs: 200,
      onSent: (j) => sent.push(j.id),
    })
    onTestFinished(async () => {
      await proxy.close()
      await scanner.close()
      await t.close()
    })
    await t.store.enqueueMany([job({ id: 'slow-answers', queue: 'timeouts' })])
    // act: twice as many timed-out sends as the attempts allow, then quick answers again
    const run = scanner.runUntil(() => sent.length > 0, 60_000)
    await eventually(() => proxy.stats.batchesArrived >= 2 * MAX_ATTEMPTS, 40_000)
    const deadDuring = (await t.store.stats()).dead
    proxy.setBatchDelay(0)
    const report = await run
    // assess
    expect(deadDuring).toBe(0)
    expect(sent).toEqual(['slow-answers'])
    expect(report.dead).toBe(0)
    expect(report.maybeSent).toBeGreaterThanOrEqual(2 * MAX_ATTEMPTS)
    expect((await t.store.stats()).dead).toBe(0)
  }, 90_000)
})
