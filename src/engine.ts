// Wires the parts together from configuration: what the Lambda entry points build once, at module scope.
import { SQSClient } from '@aws-sdk/client-sqs'
import { Agent } from 'node:https'
import { Agent as HttpAgent } from 'node:http'
import { NodeHttpHandler } from '@smithy/node-http-handler'
import type { Config } from './config'
import { Keyspace } from './keys'
import { connectRedis, type ConnectOptions } from './redis'
import { Dispatcher } from './dispatcher'
import { Leases } from './leases'
import { Scanner, type ScannerOptions } from './scanner'
import type { RedisClient } from './scripts'
import { JobStore } from './store'

export interface Engine {
  config: Config
  keys: Keyspace
  redis: ReturnType<typeof connectRedis>
  store: JobStore
  close(): Promise<void>
}

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
  })
  const dispatcher = new Dispatcher({
    sqs,
    queues: config.queues,
    concurrency: config.sendConcurrency,
    maxBatchBytes: config.maxMessageBytes,
  })
  const subscriber =
    options.subscribe === false ? undefined : (engine.redis.duplicate as () => RedisClient).call(engine.redis)
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

export function createEngine(config: Config, redisOptions: ConnectOptions = {}): Engine {
  const keys = new Keyspace({ prefix: config.keyPrefix, shards: config.shards, buckets: config.dueBuckets })
  const redis = connectRedis(config.redis, redisOptions)
  const store = new JobStore(redis, keys)
  return {
    config,
    keys,
    redis,
    store,
    async close() {
      await redis.quit().catch(() => redis.disconnect())
    },
  }
}

/** One keep-alive SQS client; many SendMessageBatch calls share its sockets. */
export function createSqsClient(config: Pick<Config, 'region' | 'sqsEndpoint' | 'sendConcurrency'>): SQSClient {
  const agentOptions = { keepAlive: true, maxSockets: Math.max(50, config.sendConcurrency * 2) }
  return new SQSClient({
    region: config.region,
    ...(config.sqsEndpoint
      ? { endpoint: config.sqsEndpoint, credentials: { accessKeyId: 'local', secretAccessKey: 'local' } }
      : {}),
    requestHandler: new NodeHttpHandler({
      httpAgent: new HttpAgent(agentOptions),
      httpsAgent: new Agent(agentOptions),
      connectionTimeout: 2_000,
      requestTimeout: 10_000,
    }),
    // The scanner retries on its own terms (release with backoff); one quick SDK retry covers blips.
    maxAttempts: 2,
  })
}
