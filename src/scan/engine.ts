// Wires the scan side from configuration: leases, the SQS dispatcher and a scanner, over an engine's Redis.
import type { SQSClient } from '@aws-sdk/client-sqs'
import { Dispatcher } from './dispatcher'
import type { Engine } from '../store/engine'
import { Leases } from './leases'
import { Scanner, type ScannerOptions } from './scanner'
import { connectRedis } from '../store/redis'
import { readBacklog } from './backlog'
import { ScanMetrics } from './metrics'
import { recordWindow } from './run-log'

import { defaultLog } from '../logger'
import { SQS_SDK_ATTEMPTS, sendTimeoutMs } from '../sqs/client'

export { createSqsClient } from '../sqs/client'

export interface CreateScannerOptions extends Pick<ScannerOptions, 'logger' | 'onSent' | 'maxInFlight'> {
  subscribe?: boolean
  /** Emit metrics (EMF on stdout) and the run log: the scan function's `service` dimension and window length. */
  metrics?: { serviceName: string; intervalMs?: number }
}

/**
 * The scan side: a dispatcher over one SQS client, leases, and a scanner with its own wake-signal connection; with
 * `metrics`, the ScanMetrics that watches it (start() it with the run, stop() it after).
 */
export function createScanner(
  engine: Engine,
  sqs: SQSClient,
  { metrics: metricsOptions, ...options }: CreateScannerOptions = {},
): { scanner: Scanner; metrics?: ScanMetrics; close(): Promise<void> } {
  const { config } = engine
  const leases = new Leases(engine.redis, {
    leaseMs: config.leaseMs,
    maxAttempts: config.maxDispatchAttempts,
    backoffBaseMs: config.dispatchBackoffBaseMs,
    backoffMaxMs: config.dispatchBackoffMaxMs,
  })
  const dispatcher = new Dispatcher({
    sqs,
    queues: config.queues,
    concurrency: config.sendConcurrency,
    maxBatchBytes: config.maxMessageBytes,
    maxSendMs: SQS_SDK_ATTEMPTS * sendTimeoutMs(config.leaseMs),
  })
  // A connection of its own (a subscribed one can run nothing else), with the same settings and error reporting.
  const subscriber = options.subscribe === false ? undefined : connectRedis(config.redis)
  const metrics =
    metricsOptions &&
    new ScanMetrics({
      ...metricsOptions,
      loops: engine.keys.shards.length,
      readBacklog: () => readBacklog(engine.redis, engine.keys),
      redisNow: () => scanner.redisNow(),
      recordWindow: (window) => recordWindow(engine.redis, engine.keys, window),
      logger: options.logger ?? defaultLog(),
    })
  const scanner: Scanner = new Scanner({
    leases,
    dispatcher,
    keys: engine.keys,
    subscriber,
    pollIntervalMs: config.pollIntervalMs,
    claimBatchSize: config.claimBatchSize,
    observer: metrics,
    ...options,
  })
  return {
    scanner,
    metrics,
    async close() {
      scanner.stop()
      if (subscriber) await subscriber.quit().catch(() => subscriber.disconnect())
    },
  }
}
