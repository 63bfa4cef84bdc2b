// Wires the scan side: leases, the SQS dispatcher and a scanner, over an engine's Redis. `createScanner` takes the
// deployed configuration; tests and benches build the same parts with their own settings through `buildScanner`.
import type { SQSClient } from '@aws-sdk/client-sqs'
import type { Config } from '../config'
import { isFifoQueue } from '../queues'
import { maxSendMs, sendTimeoutMs } from '../sqs/sqs-client'
import type { Engine } from '../store/engine'
import type { Keyspace } from '../store/keys'
import { FlowGate } from '../flow/flow-gate'
import type { ReplicationOptions } from '../store/redis/replication'
import { closeRedis, connectRedis } from '../store/redis/redis'
import type { RedisClient, ScriptedClient } from '../store/scripts'
import { Dispatcher } from './dispatch/dispatcher'
import { Leases, type LeaseOptions } from './claims/leases'
import { delayOf } from './claims/backoff'
import { MemoryWatch } from './observe/memory-watch'
import { Scanner, type ScannerOptions } from './loop/scanner'
import { defaultLog } from '../logger'
import { readBacklog } from './observe/backlog'
import { ScanMetrics } from './observe/metrics'
import { recordWindow } from './observe/run-log'
import { CpuShareMeter } from './observe/cpu-share'

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
> &
  /** Default 0: each job is sent as soon as it is due. */
  Partial<Pick<Config, 'dispatchWindowMs'>> &
  /** Without it, no memory watch (tests and benches that count Redis commands). */
  Partial<Pick<Config, 'memoryWarnPercent'>> &
  /** Default 0: no dispatch receipts. */
  Partial<Pick<Config, 'dispatchReceiptTtlMs'>>

/**
 * Every job goes to one standard queue, so ten due jobs fill one SendMessageBatch (the dispatcher batches per queue,
 * and a FIFO queue's jobs over several lanes): only then does a full request end a dispatch window early.
 */
const sendsToOneLane = (queues: Record<string, string>): boolean => {
  const names = Object.keys(queues)
  return names.length === 1 && !isFifoQueue(names[0]!)
}

export type ScanHooks = Pick<
  ScannerOptions,
  'logger' | 'observer' | 'onSent' | 'maxInFlight' | 'ackHoldMs' | 'onClaimed'
> &
  Pick<LeaseOptions, 'localClock'>

/** Leases, a dispatcher over one SQS client, and a scanner; `subscriber` carries the wake signal when given. */
export function buildScanner(
  parts: {
    redis: ScriptedClient
    keys: Keyspace
    sqs: SQSClient
    subscriber?: RedisClient
    /** The engine's replication: claims confirmed by a replica before their jobs go out (src/scan/claims/claim-fence.ts). */
    replication?: ReplicationOptions
  },
  settings: ScanSettings,
  hooks: ScanHooks = {},
): { scanner: Scanner; leases: Leases; dispatcher: Dispatcher; memoryWatch?: MemoryWatch } {
  const leases = new Leases(
    parts.redis,
    {
      leaseMs: settings.leaseMs,
      maxAttempts: settings.maxDispatchAttempts,
      backoffBaseMs: settings.dispatchBackoffBaseMs,
      backoffMaxMs: settings.dispatchBackoffMaxMs,
      windowMs: settings.dispatchWindowMs,
      fullRequests: sendsToOneLane(settings.queues),
      ...(hooks.localClock ? { localClock: hooks.localClock } : {}),
      receiptTtlMs: settings.dispatchReceiptTtlMs,
      ...(parts.replication ? { replication: parts.replication } : {}),
    },
    parts.keys,
  )
  const dispatcher = new Dispatcher({
    sqs: parts.sqs,
    queues: settings.queues,
    concurrency: settings.sendConcurrency,
    maxBatchBytes: settings.maxMessageBytes,
    baseSendMs: sendTimeoutMs(settings.leaseMs),
    maxSendMs: maxSendMs(settings.leaseMs),
    onSlowed: (change) =>
      (hooks.logger ?? defaultLog()).warn('SQS answers slowly: fewer sends in flight, a longer timeout', { ...change }),
    // A refused FIFO job's group waits for its retry (its backoff), and for a lease more for the claim that takes it.
    fifoHoldMs: (job) => delayOf(job, leases.options) + settings.leaseMs,
  })
  const memoryWatch =
    settings.memoryWarnPercent === undefined
      ? undefined
      : new MemoryWatch(parts.redis, {
          warnPercent: settings.memoryWarnPercent,
          logger: hooks.logger,
        })
  const scanner = new Scanner({
    memoryWatch,
    leases,
    dispatcher,
    keys: parts.keys,
    subscriber: parts.subscriber,
    pollIntervalMs: settings.pollIntervalMs,
    dispatchWindowMs: settings.dispatchWindowMs,
    claimBatchSize: settings.claimBatchSize,
    flow: new FlowGate({
      redis: parts.redis,
      keys: parts.keys,
      ...(hooks.observer?.flow ? { observer: hooks.observer.flow } : {}),
    }),
    ...hooks,
  })
  return { scanner, leases, dispatcher, memoryWatch }
}

export interface CreateScannerOptions extends ScanHooks {
  subscribe?: boolean
  /** Emit metrics (EMF on stdout) and the run log: the `service` dimension, and the window length. */
  metrics?: { serviceName: string; intervalMs?: number }
}

/**
 * The scan side from the deployed configuration, with its own wake-signal connection; with `metrics`, the
 * ScanMetrics that watches it (start() it with the run, stop() it after).
 */
export function createScanner(
  engine: Engine,
  sqs: SQSClient,
  options: CreateScannerOptions = {},
): { scanner: Scanner; metrics?: ScanMetrics; close(): Promise<void> } {
  const { subscribe, metrics: metricsOptions, ...hooks } = options
  // A connection of its own (a subscribed one can run nothing else), with the same settings and error reporting.
  const subscriber = subscribe === false ? undefined : connectRedis(engine.config.redis, { logger: hooks.logger })
  let requestsTaken = 0
  const metrics =
    metricsOptions &&
    new ScanMetrics({
      ...metricsOptions,
      loops: engine.keys.shards.length,
      readBacklog: () => readBacklog(engine.redis, engine.keys),
      redisNow: () => scanner.redisNow(),
      recordWindow: (window) => recordWindow(engine.redis, engine.keys, window),
      readMemory: () => memoryWatch?.latest ?? null,
      takeSqsRequests: () => {
        const taken = dispatcher.requests - requestsTaken
        requestsTaken += taken
        return taken
      },
      cpuShare: CpuShareMeter.fromEnv(),
      logger: hooks.logger ?? defaultLog(),
    })
  const { scanner, memoryWatch, dispatcher } = buildScanner(
    {
      redis: engine.redis,
      keys: engine.keys,
      sqs,
      subscriber,
      ...(engine.replication ? { replication: engine.replication } : {}),
    },
    engine.config,
    { observer: metrics, ...hooks },
  )
  return {
    scanner,
    metrics,
    async close() {
      scanner.stop()
      if (subscriber) await closeRedis(subscriber)
    },
  }
}
