// Redis connections from configuration: one node (redis:// or rediss://) or a Redis Cluster.
import { Cluster, Redis, type ClusterOptions, type RedisOptions } from 'ioredis'
import type { Config } from '../config'
import { defaultLog, type Log } from '../logger'
import { withScripts, type ScriptedClient } from './scripts'

export interface ConnectOptions {
  /** Where connection errors go (at most one line per 10 s). Default: the engine's shared logger. */
  logger?: Log
  /** Fail a command after this long rather than waiting for a reconnect (the API answers 503 instead). */
  commandTimeoutMs?: number
  /** How many times ioredis retries a command across reconnects before failing it. */
  maxRetriesPerRequest?: number
}

export function connectRedis(config: Config['redis'], options: ConnectOptions = {}): ScriptedClient {
  const common: RedisOptions = {
    commandTimeout: options.commandTimeoutMs,
    maxRetriesPerRequest: options.maxRetriesPerRequest ?? 2,
    connectTimeout: 5_000,
    // Reconnect quickly, but back off to 1 s: Redis restarts (failover, patching) should heal by themselves.
    retryStrategy: (times) => Math.min(50 * times, 1_000),
    enableAutoPipelining: false,
  }
  if (config.clusterNodes?.length) {
    const auth = config.url ? new URL(config.url) : undefined
    const clusterOptions: ClusterOptions = {
      redisOptions: {
        ...common,
        username: auth?.username ? decodeURIComponent(auth.username) : undefined,
        password: auth?.password ? decodeURIComponent(auth.password) : undefined,
        tls: auth?.protocol === 'rediss:' ? {} : undefined,
      },
      clusterRetryStrategy: clusterRetry(options.maxRetriesPerRequest ?? 2),
      // Managed clusters (ElastiCache, MemoryDB) announce node addresses behind TLS names: keep them as given.
      dnsLookup: (address, callback) => callback(null, address),
      slotsRefreshTimeout: 2_000,
    }
    const nodes = config.clusterNodes.map((node) => {
      const at = node.lastIndexOf(':')
      return { host: node.slice(0, at), port: Number(node.slice(at + 1)) }
    })
    return reportErrors(withScripts(new Cluster(nodes, clusterOptions)), options.logger)
  }
  const url = config.url!
  return reportErrors(withScripts(new Redis(url, { ...common, tls: url.startsWith('rediss://') ? {} : undefined })), options.logger)
}

/**
 * Keep reconnecting to the cluster, but do not let commands wait for it forever: ioredis's Cluster holds them in its
 * offline queue until it is ready, with no limit (a wrong password or an unreachable cluster would hang every call
 * until the Lambda times out). After `maxRetries` failed attempts in a row, fail what is queued, as the single-node
 * client does with maxRetriesPerRequest; callers answer 503 / back off.
 */
function clusterRetry(maxRetries: number) {
  return function (this: Cluster, times: number, reason?: Error): number {
    if (times > maxRetries) {
      ;(this as unknown as { flushQueue?(e: Error): void }).flushQueue?.(
        new Error(`Redis Cluster unavailable after ${times - 1} attempts: ${reason?.message ?? 'no node answered'}`),
      )
    }
    return Math.min(100 * times, 2_000)
  }
}

const ERROR_LOG_INTERVAL_MS = 10_000

/**
 * Without an 'error' listener ioredis prints "Unhandled error event" on every failed reconnect, flooding the logs
 * during an outage. Commands still fail (and callers answer 503 / back off); this only reports, rate-limited.
 */
function reportErrors<T extends ScriptedClient>(client: T, logger?: Log): T {
  let last = 0
  let suppressed = 0
  client.on('error', (e: unknown) => {
    const now = Date.now()
    if (now - last < ERROR_LOG_INTERVAL_MS) {
      suppressed++
      return
    }
    last = now
    ;(logger ?? defaultLog()).warn('redis connection error', {
      error: e instanceof Error ? e.message : String(e),
      suppressed,
    })
    suppressed = 0
  })
  return client
}
