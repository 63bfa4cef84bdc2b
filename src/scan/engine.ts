// Wires the scan side from configuration: leases, the SQS dispatcher and a scanner, over an engine's Redis.
import type { SQSClient } from '@aws-sdk/client-sqs'
import { Dispatcher } from './dispatcher'
import type { Engine } from '../store/engine'
import { Leases } from './leases'
import { Scanner, type ScannerOptions } from './scanner'
import { connectRedis } from '../store/redis'

import { SQS_SDK_ATTEMPTS, sendTimeoutMs } from '../sqs/client'


/** The scan side: a dispatcher over one SQS client, leases, and a scanner with its own wake-signal connection. */
export function createScanner(
  engine: Engine,
  sqs: SQSClient,
  options: Pick<ScannerOptions, 'log' | 'onSent' | 'maxInFlight'> & { subscribe?: boolean } = {},
): { scanner: Scanner; close(): Promise<void> } {
  const { config } = engine
  const leases = new Leases(engine.redis, {
    leaseMs: config.leaseMs,
    maxAttempts: config.maxDispatchAttempts,
    backoffBaseMs: config.dispatchBackoffBaseMs,
    backoffMaxMs: config.dispatchBackoffMaxMs,
  }, engine.keys)
  const dispatcher = new Dispatcher({
    sqs,
    queues: config.queues,
    concurrency: config.sendConcurrency,
    maxBatchBytes: config.maxMessageBytes,
    maxSendMs: SQS_SDK_ATTEMPTS * sendTimeoutMs(config.leaseMs),
  })
  // A connection of its own (a subscribed one can run nothing else), with the same settings and error reporting.
  const subscriber = options.subscribe === false ? undefined : connectRedis(config.redis)
  const scanner = new Scanner({
    leases,
    dispatcher,
    keys: engine.keys,
    subscriber,
    pollIntervalMs: config.pollIntervalMs,
    claimBatchSize: config.claimBatchSize,
    ...options,
  })
  return {
    scanner,
    async close() {
      scanner.stop()
      if (subscriber) await subscriber.quit().catch(() => subscriber.disconnect())
    },
  }
}
