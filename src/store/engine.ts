// Wires the job store from configuration: what the API and any enqueuing application build once, at module scope.
// The scan side (SQS, leases, scanner) is wired in src/scan/create-scanner.ts, so the API never loads the SQS SDK (an import
// boundary in biome.jsonc: `npm run lint` fails on it).
import type { Config } from '../config'
import { Keyspace } from './keys'
import { closeRedis, connectRedis, type ConnectOptions } from './redis/redis'
import { JobStore } from './job-store'
import { defaultLog } from '../logger'
import { replicaWatchOf } from './redis/replica-watch'
import type { ReplicationOptions } from './redis/replication'
import { scanStartOptions, type ScanStartOptions } from '../on-demand/start/scan-start'

export interface Engine {
  config: Config
  keys: Keyspace
  redis: ReturnType<typeof connectRedis>
  store: JobStore
  /**
   * REDIS_WAIT_REPLICAS as the store applies it: the scanner's claims are confirmed the same way. Every store and
   * script writer over this engine takes it; none has a replication default of its own.
   */
  replication: ReplicationOptions
  close(): Promise<void>
}

export function createEngine(
  config: Config,
  redisOptions: ConnectOptions = {},
  scanStart: ScanStartOptions = scanStartOptions(config),
): Engine {
  const keys = new Keyspace({ prefix: config.keyPrefix, shards: config.shards, buckets: config.dueBuckets })
  const redis = connectRedis(config.redis, redisOptions)
  const { waitReplicas: replicas, waitTimeoutMs: timeoutMs } = config.redis
  const replication: ReplicationOptions = {
    replicas,
    timeoutMs,
    ...(replicas === 'auto'
      ? { watch: replicaWatchOf(redis, keys, redisOptions.logger ?? defaultLog(), timeoutMs) }
      : {}),
  }
  const store = new JobStore(redis, keys, scanStart, replication, config.dispatchReceiptTtlMs)
  return {
    config,
    keys,
    redis,
    store,
    replication,
    async close() {
      await closeRedis(redis)
    },
  }
}
