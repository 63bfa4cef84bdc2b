// Wires the scan side: leases, the SQS dispatcher and a scanner, over an engine's Redis. `createScanner` takes the
// deployed configuration; tests and benches build the same parts with their own settings through `buildScanner`.
import type { SQSClient } from '@aws-sdk/client-sqs'
import type { Config } from '../config'
import { SQS_SDK_ATTEMPTS, sendTimeoutMs } from '../sqs/client'
import type { Engine } from '../store/engine'
import type { Keyspace } from '../store/keys'
import { connectRedis } from '../store/redis'
import type { RedisClient, ScriptedClient } from '../store/scripts'
import { Dispatcher } from './dispatcher'
import { Leases } from './leases'
import { Scanner, type ScannerOptions } from './scanner'

/** The settings the scan side reads. */
export type ScanSettings = Pick<
  Config,
  | 'leaseMs'
  | 'maxDispatchAttempts'
  | 'dispatchBackoffBaseMs'
  | 'dispatchBackoffMaxMs'
  | 'queues'
  | 'sendConcurrency'
  | 'maxMessageBytes'
  | 'pollIntervalMs'
  | 'claimBatchSize'
>

export type ScanHooks = Pick<ScannerOptions, 'log' | 'onSent' | 'maxInFlight'>

/** Leases, a dispatcher over one SQS client, and a scanner; `subscriber` carries the wake signal when given. */
export function buildScanner(
  parts: { redis: ScriptedClient; keys: Keyspace; sqs: SQSClient; subscriber?: RedisClient },
  settings: ScanSettings,
  hooks: ScanHooks = {},
): { scanner: Scanner; leases: Leases; dispatcher: Dispatcher } {
  const leases = new Leases(parts.redis, {
    leaseMs: settings.leaseMs,
    maxAttempts: settings.maxDispatchAttempts,
    backoffBaseMs: settings.dispatchBackoffBaseMs,
    backoffMaxMs: settings.dispatchBackoffMaxMs,
  })
  const dispatcher = new Dispatcher({
    sqs: parts.sqs,
    queues: settings.queues,
    concurrency: settings.sendConcurrency,
    maxBatchBytes: settings.maxMessageBytes,
    maxSendMs: SQS_SDK_ATTEMPTS * sendTimeoutMs(settings.leaseMs),
  })
  const scanner = new Scanner({
    leases,
    dispatcher,
    keys: parts.keys,
    subscriber: parts.subscriber,
    pollIntervalMs: settings.pollIntervalMs,
    claimBatchSize: settings.claimBatchSize,
    ...hooks,
  })
  return { scanner, leases, dispatcher }
}

/** The scan side from the deployed configuration, with its own wake-signal connection. */
export function createScanner(
  engine: Engine,
  sqs: SQSClient,
  options: ScanHooks & { subscribe?: boolean } = {},
): { scanner: Scanner; close(): Promise<void> } {
  const { subscribe, ...hooks } = options
  // A connection of its own (a subscribed one can run nothing else), with the same settings and error reporting.
  const subscriber = subscribe === false ? undefined : connectRedis(engine.config.redis)
  const { scanner } = buildScanner({ redis: engine.redis, keys: engine.keys, sqs, subscriber }, engine.config, hooks)
  return {
    scanner,
    async close() {
      scanner.stop()
      if (subscriber) await subscriber.quit().catch(() => subscriber.disconnect())
    },
  }
}
