// Redis connections from configuration: one node (redis:// or rediss://) or a Redis Cluster.
import { Cluster, Redis, type ClusterOptions, type RedisOptions } from 'ioredis'
import type { RedisSettings } from './redis-settings'
import { defaultLog, type Log } from '../../logger'
import { describeConnectionError } from './redis-errors'
import { withScripts, type RedisClient, type ScriptedClient } from '../scripts'

export interface ConnectOptions {
  /** Where connection errors go (at most one line per 10 s). Default: the engine's shared logger. */
  logger?: Log
  /** Fail a command after this long rather than waiting for a reconnect (the API answers 503 instead). */
  commandTimeoutMs?: number
  /** How many times ioredis retries a command across reconnects before failing it. */
  maxRetriesPerRequest?: number
}

export function connectRedis(config: RedisSettings, options: ConnectOptions = {}): ScriptedClient {
  const common: RedisOptions = {
    commandTimeout: options.commandTimeoutMs,
    maxRetriesPerRequest: options.maxRetriesPerRequest ?? 2,
    connectTimeout: 5_000,
    // Reconnect quickly, but back off to 1 s: Redis restarts (failover, patching) should heal by themselves.
    retryStrategy: (times) => Math.min(50 * times, 1_000),
    enableAutoPipelining: false,
  }
  const auth = config.url ? new URL(config.url) : undefined
  const credentials = {
    username: auth?.username ? decodeURIComponent(auth.username) : undefined,
    password: auth?.password ? decodeURIComponent(auth.password) : undefined,
  }
  const tls = auth?.protocol === 'rediss:' ? tlsOptions(config.tlsCa) : undefined
  let client: RedisClient
  if (config.clusterNodes?.length) {
    const clusterOptions: ClusterOptions = {
      redisOptions: { ...common, ...credentials, tls },
      clusterRetryStrategy: clusterRetry(options.maxRetriesPerRequest ?? 2),
      // Managed clusters (ElastiCache, MemoryDB) announce node addresses behind TLS names: keep them as given.
      dnsLookup: (address, callback) => callback(null, address),
      slotsRefreshTimeout: 2_000,
    }
    client = new Cluster(config.clusterNodes.map(hostPort), clusterOptions)
  } else if (config.sentinels?.length) {
    client = new Redis({
      ...common,
      ...credentials,
      sentinels: config.sentinels.map(hostPort),
      name: config.sentinelMaster ?? 'mymaster',
      tls,
      enableTLSForSentinelMode: tls !== undefined,
      // No failoverDetector: in ioredis 6 its "+switch-master" disconnect can land while the client is reconnecting
      // after the primary died, and a connect cut short that way ends the client for good (the likely cause of a
      // "Connection is closed." the failover test met once). A dead primary drops the connection anyway, and each
      // reconnect asks the sentinels where the primary is.
      // A demoted primary answers writes with READONLY: they did not run, so reconnect (to the new primary) and resend.
      reconnectOnError: (e) => (/^READONLY/.test(e.message) ? 2 : false),
    })
  } else {
    client = new Redis(config.url!, { ...common, tls })
  }
  return reportErrors(withScripts(skipSettledCommands(client)), options.logger)
}

type SendCommand = (command: { isSettled?: boolean; promise: Promise<unknown> }, ...rest: unknown[]) => unknown

/**
 * Never sends a command whose caller has been answered already. A command that timed out (commandTimeout) while the
 * connection was down stays in ioredis's offline queue, or in the queue it resends after a reconnect; sent then, a
 * write whose caller was told it failed (the API answered 503, the client sent it again) would run after all: the
 * chaos run saw a batch create run twice. Commands whose callers still wait are sent as before.
 */
function skipSettledCommands(client: RedisClient): RedisClient {
  const guard = (redis: { sendCommand: SendCommand }) => {
    const send = redis.sendCommand.bind(redis)
    redis.sendCommand = (command, ...rest) => (command.isSettled ? command.promise : send(command, ...rest))
  }
  guard(client as unknown as { sendCommand: SendCommand })
  // A Cluster's node connections keep queues of their own.
  if (client instanceof Cluster) client.on('+node', (node) => guard(node as unknown as { sendCommand: SendCommand }))
  return client
}

/** QUIT, then disconnect: in Sentinel mode ioredis can keep sentinel connections (and their reconnects) after QUIT. */
export async function closeRedis(client: RedisClient): Promise<void> {
  await client.quit().catch(() => undefined)
  client.disconnect()
}

function hostPort(node: string): { host: string; port: number } {
  const at = node.lastIndexOf(':')
  return { host: node.slice(0, at), port: Number(node.slice(at + 1)) }
}

/** TLS with the system's CAs, or only the configured CA (a private one, or the test's self-signed one). */
function tlsOptions(ca: string | undefined): RedisOptions['tls'] {
  return ca ? { ca } : {}
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
  const onConnectionError = (e: unknown) => {
    const now = Date.now()
    if (now - last < ERROR_LOG_INTERVAL_MS) {
      suppressed++
      return
    }
    last = now
    ;(logger ?? defaultLog()).warn('redis connection error', { error: describeConnectionError(e), suppressed })
    suppressed = 0
  }
  client.on('error', onConnectionError)
  // A Cluster's own error only says that no node answered; each node's error says why (TLS, auth, refused).
  if (client instanceof Cluster) client.on('node error', onConnectionError)
  return client
}
