// A scanner wired to the real Redis and fauxqs, with settings short enough for tests.
import { sleep } from '../../devkit/sleep'
import type { Redis } from 'ioredis'
import { inject } from 'vitest'
import { buildScanner } from '../../src/scan/create-scanner'
import type { LeaseOptions } from '../../src/scan/claims/leases'
import type { ScanReport } from '../../src/scan/observe/run-tally'
import type { ScannerOptions } from '../../src/scan/loop/scanner'
import { createSqsClient } from '../../src/sqs/sqs-client'
import type { Keyspace } from '../../src/store/keys'
import type { ScriptedClient } from '../../src/store/scripts'

export interface TestScannerOptions extends Partial<LeaseOptions> {
  queues: Record<string, string>
  sqsEndpoint?: string
  pollIntervalMs?: number
  claimBatchSize?: number
  concurrency?: number
  subscribe?: boolean
  onSent?: ScannerOptions['onSent']
  ackHoldMs?: number
  dispatchWindowMs?: number
  maxInFlight?: number
  onClaimed?: ScannerOptions['onClaimed']
}

export function testScanner(t: { redis: ScriptedClient; keys: Keyspace }, o: TestScannerOptions) {
  const sqs = createSqsClient({
    region: 'us-east-1',
    sqsEndpoint: o.sqsEndpoint ?? inject('sqsEndpoint'),
    sendConcurrency: o.concurrency ?? 8,
  })
  const subscriber = o.subscribe === false ? undefined : (t.redis as Redis).duplicate()
  const { scanner, leases } = buildScanner(
    { redis: t.redis, keys: t.keys, sqs, subscriber },
    {
      leaseMs: o.leaseMs ?? 5_000,
      maxDispatchAttempts: o.maxAttempts ?? 10,
      dispatchBackoffBaseMs: o.backoffBaseMs ?? 20,
      dispatchBackoffMaxMs: o.backoffMaxMs ?? 200,
      queues: o.queues,
      sendConcurrency: o.concurrency ?? 8,
      maxMessageBytes: 1_048_576,
      pollIntervalMs: o.pollIntervalMs ?? 100,
      claimBatchSize: o.claimBatchSize ?? 100,
      dispatchWindowMs: o.dispatchWindowMs,
      dispatchReceiptTtlMs: o.receiptTtlMs,
    },
    {
      onSent: o.onSent,
      ...(o.onClaimed === undefined ? {} : { onClaimed: o.onClaimed }),
      ...(o.ackHoldMs === undefined ? {} : { ackHoldMs: o.ackHoldMs }),
      ...(o.maxInFlight === undefined ? {} : { maxInFlight: o.maxInFlight }),
      ...(o.localClock === undefined ? {} : { localClock: o.localClock }),
    },
  )
  return {
    scanner,
    leases,
    sqs,
    /** Runs until `done()` holds (checked every 25 ms) or the timeout, then stops and returns the report. */
    async runUntil(done: () => Promise<boolean> | boolean, timeoutMs = 20_000): Promise<ScanReport> {
      const run = scanner.run(Date.now() + timeoutMs)
      let finished = false
      void run.finally(() => (finished = true))
      while (!finished && !(await done())) await sleep(25)
      scanner.stop()
      return run
    },
    async close() {
      scanner.stop()
      sqs.destroy()
      await subscriber?.quit()
    },
  }
}

/** Pending jobs of the store (scheduled + in flight), from its counters. */
export async function pendingCount(store: { stats(): Promise<{ queues: Record<string, { pending: number }> }> }) {
  const stats = await store.stats()
  return Object.values(stats.queues).reduce((n, q) => n + q.pending, 0)
}
