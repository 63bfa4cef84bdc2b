// Configuration from the environment, validated once at cold start: a bad setting fails fast, naming it.
import { readFileSync } from 'node:fs'
import { ConfigError } from './errors'
import { parseQueues } from './queues'
import { readHttpTargets, type HttpTargets } from './http-target/target-settings'
import { warnOnCleartextPassword } from './store/redis/redis-cleartext'
import type { RedisSettings, ReplicaWaitSettings } from './store/redis/redis-settings'
import { KEY_PREFIX_PATTERN } from './store/keys'

export interface Config {
  redis: RedisSettings & ReplicaWaitSettings
  /** used_memory above this share of maxmemory is warned about (percent). */
  memoryWarnPercent: number
  /** Target name -> SQS queue URL. Names ending in `.fifo` are FIFO queues. */
  queues: Record<string, string>
  /** HTTP_TARGETS: the target queues whose jobs are HTTP requests, and their defaults (src/http-target/). */
  httpTargets?: HttpTargets
  keyPrefix: string
  shards: number
  /** Due buckets per shard (see src/store/keys.ts). */
  dueBuckets: number
  pollIntervalMs: number
  /** How long after its due time the scan may hold a job, so jobs due close together share one SendMessageBatch. */
  dispatchWindowMs: number
  claimBatchSize: number
  /** Most scan workers one scan run starts beside itself for a burst (src/scan/run/fan-out.ts); 0: no fan-out. */
  scanMaxWorkers: number
  leaseMs: number
  sendConcurrency: number
  maxHorizonMs: number
  maxMessageBytes: number
  safetyMarginMs: number
  maxDispatchAttempts: number
  dispatchBackoffBaseMs: number
  dispatchBackoffMaxMs: number
  /**
   * How long a job's dispatch receipt is kept after SQS accepted it (GET /jobs/{id} answers "dispatched"); 0: none.
   * Kept an hour more at most: receipts expire by the hour (src/store/receipt.ts).
   */
  dispatchReceiptTtlMs: number
  region: string
  /** Local runs only: fauxqs. Never set in AWS. */
  sqsEndpoint?: string
  /**
   * `continuous`: every scan invocation loops until its deadline. `on-demand`: an invocation ends once nothing is
   * due within `onDemandHorizonMs` (after `onDemandLingerMs` without work), and enqueues start one when needed.
   * SCAN_MODE unset: `on-demand` when SCAN_FUNCTION_NAME is set, else `continuous`.
   */
  scanMode: ScanMode
  /** The scan function's name: enqueues start it in on-demand mode (without it, their jobs wait for the next tick). */
  scanFunctionName?: string
  /** On-demand: what the next scheduled invocation can still take in time (its interval plus its jitter). */
  onDemandHorizonMs: number
  /** On-demand: how long an invocation stays after its last dispatched job, for the jobs that follow a burst. */
  onDemandLingerMs: number
  /** Local runs only: serverless-offline's Lambda endpoint. Never set in AWS. */
  lambdaEndpoint?: string
}

export type ScanMode = 'continuous' | 'on-demand'
export const SCAN_MODES: readonly ScanMode[] = ['continuous', 'on-demand']

type Env = Record<string, string | undefined>

const DAY_MS = 86_400_000

export function loadConfig(env: Env = process.env): Config {
  const int = intReader(env)
  const redis = readRedis(env, int)
  warnOnCleartextPassword(redis)
  return {
    redis,
    queues: parseQueues(env.QUEUES),
    httpTargets: readHttpTargets(env),
    ...readEndpoints(env),
    ...readKeyspace(env, int),
    ...readApiLimits(int),
    ...readScan(int),
    ...readOnDemand(env, int),
  }
}

/** Reads a whole-number setting: its fallback when unset or empty, else a number within [min, max]. */
type IntReader = (name: string, fallback: number, min: number, max?: number) => number

function intReader(env: Env): IntReader {
  return (name, fallback, min, max = Number.MAX_SAFE_INTEGER) => {
    const raw = env[name]
    if (raw === undefined || raw === '') return fallback
    if (!/^\d+$/.test(raw.trim())) throw new ConfigError(name, `must be a whole number, got "${raw}"`)
    const value = Number(raw)
    if (value < min || value > max) throw new ConfigError(name, `must be between ${min} and ${max}, got ${value}`)
    return value
  }
}

/** Where Redis is (one server, a cluster, or sentinels), how to trust it, and what a write waits for. */
function readRedis(env: Env, int: IntReader): Config['redis'] {
  const url = env.REDIS_URL || undefined
  if (url && !/^rediss?:\/\//.test(url)) throw new ConfigError('REDIS_URL', 'must start with redis:// or rediss://')
  const clusterNodes = hostPorts('REDIS_CLUSTER_NODES', env.REDIS_CLUSTER_NODES)
  const sentinels = hostPorts('REDIS_SENTINELS', env.REDIS_SENTINELS)
  if (!url && !clusterNodes?.length && !sentinels?.length) {
    throw new ConfigError('REDIS_URL', 'is required (or REDIS_CLUSTER_NODES, or REDIS_SENTINELS)')
  }
  if (clusterNodes?.length && sentinels?.length) {
    throw new ConfigError(
      'REDIS_SENTINELS',
      'cannot be combined with REDIS_CLUSTER_NODES (a cluster fails over by itself)',
    )
  }
  const sentinelMaster = env.REDIS_SENTINEL_MASTER || 'mymaster'
  if (!/^[A-Za-z0-9_.-]{1,64}$/.test(sentinelMaster)) {
    throw new ConfigError('REDIS_SENTINEL_MASTER', 'must be 1-64 characters of [A-Za-z0-9_.-]')
  }
  const tlsCa = readCa(env.REDIS_TLS_CA_FILE)
  if (tlsCa && url && !url.startsWith('rediss://')) {
    throw new ConfigError('REDIS_TLS_CA_FILE', 'is set, but REDIS_URL is not rediss:// (TLS)')
  }
  return {
    url,
    clusterNodes,
    ...(sentinels?.length ? { sentinels, sentinelMaster } : {}),
    tlsCa,
    waitReplicas: readWaitReplicas(env, int),
    // The one place the replication defaults are set: the engine and the stores take them as given.
    waitTimeoutMs: int('REDIS_WAIT_TIMEOUT_MS', 1_000, 1, 60_000),
  }
}

/** REDIS_WAIT_REPLICAS: `auto` when unset (src/store/redis/replica-watch.ts), else a whole number of replicas. */
function readWaitReplicas(env: Env, int: IntReader): number | 'auto' {
  const raw = env.REDIS_WAIT_REPLICAS?.trim()
  if (!raw || raw === 'auto') return 'auto'
  if (!/^\d+$/.test(raw)) throw new ConfigError('REDIS_WAIT_REPLICAS', `must be "auto" or a whole number, got "${raw}"`)
  return int('REDIS_WAIT_REPLICAS', 0, 0, 16)
}

/** The AWS region, and the local stand-ins for AWS's endpoints (never set in AWS). */
function readEndpoints(env: Env): Pick<Config, 'region' | 'sqsEndpoint' | 'lambdaEndpoint'> {
  const sqsEndpoint = env.SQS_ENDPOINT || undefined
  if (sqsEndpoint && !/^https?:\/\//.test(sqsEndpoint)) throw new ConfigError('SQS_ENDPOINT', 'must be an http(s) URL')
  const lambdaEndpoint = env.LAMBDA_ENDPOINT || undefined
  if (lambdaEndpoint && !/^https?:\/\//.test(lambdaEndpoint)) {
    throw new ConfigError('LAMBDA_ENDPOINT', 'must be an http(s) URL')
  }
  return { region: env.AWS_REGION || env.AWS_DEFAULT_REGION || 'us-east-1', sqsEndpoint, lambdaEndpoint }
}

/** The key layout: stored with the jobs (src/store/layout.ts), so every deployment over them must agree. */
function readKeyspace(env: Env, int: IntReader): Pick<Config, 'keyPrefix' | 'shards' | 'dueBuckets'> {
  const keyPrefix = env.KEY_PREFIX || 'sdq'
  if (!KEY_PREFIX_PATTERN.test(keyPrefix)) {
    throw new ConfigError('KEY_PREFIX', 'must be 1-64 characters of [A-Za-z0-9_.:-]')
  }
  return { keyPrefix, shards: int('SHARDS', 1, 1, 1024), dueBuckets: int('DUE_BUCKETS', 16384, 1, 1 << 20) }
}

/** What the API (and DelayQueue) accept: how far ahead, and how large. */
function readApiLimits(int: IntReader): Pick<Config, 'maxHorizonMs' | 'maxMessageBytes'> {
  return {
    maxHorizonMs: int('MAX_HORIZON_DAYS', 400, 1, 100 * 365) * DAY_MS,
    maxMessageBytes: int('MAX_MESSAGE_BYTES', 1_048_576, 1024, 1_048_576),
  }
}

type ScanSettings =
  | 'memoryWarnPercent'
  | 'pollIntervalMs'
  | 'dispatchWindowMs'
  | 'claimBatchSize'
  | 'scanMaxWorkers'
  | 'leaseMs'
  | 'sendConcurrency'
  | 'safetyMarginMs'
  | 'maxDispatchAttempts'
  | 'dispatchBackoffBaseMs'
  | 'dispatchBackoffMaxMs'
  | 'dispatchReceiptTtlMs'

/** The scan loop: claims, leases, sends, dispatch retries, and the memory warning it raises. */
function readScan(int: IntReader): Pick<Config, ScanSettings> {
  const scan = {
    memoryWarnPercent: int('REDIS_MEMORY_WARN_PERCENT', 80, 1, 100),
    pollIntervalMs: int('POLL_INTERVAL_MS', 1000, 10, 60_000),
    // At most half the 60 s OldestDueAgeMs alarm, which a healthy stream must not approach.
    dispatchWindowMs: int('DISPATCH_WINDOW_MS', 0, 0, 30_000),
    claimBatchSize: int('CLAIM_BATCH_SIZE', 250, 1, 1000),
    // Lambda's default concurrency quota is 1,000 per account and region; 100 workers is far past any one Redis.
    scanMaxWorkers: int('SCAN_MAX_WORKERS', 4, 0, 100),
    leaseMs: int('LEASE_MS', 30_000, 1_000, 15 * 60_000),
    sendConcurrency: int('SEND_CONCURRENCY', 16, 1, 256),
    safetyMarginMs: int('SAFETY_MARGIN_MS', 4_000, 0, 60_000),
    maxDispatchAttempts: int('MAX_DISPATCH_ATTEMPTS', 10, 1, 100),
    dispatchBackoffBaseMs: int('DISPATCH_BACKOFF_BASE_MS', 1_000, 1, 3_600_000),
    dispatchBackoffMaxMs: int('DISPATCH_BACKOFF_MAX_MS', 300_000, 1, 86_400_000),
    // A day by default (~70 bytes per receipt: docs/sizing.md); at most a week.
    dispatchReceiptTtlMs: int('DISPATCH_RECEIPT_TTL_MS', DAY_MS, 0, 7 * DAY_MS),
  }
  if (scan.leaseMs < 2 * scan.safetyMarginMs) {
    throw new ConfigError('LEASE_MS', 'must be at least twice SAFETY_MARGIN_MS, so a send outlives no lease')
  }
  return scan
}

/** Whether scans run every minute or only while jobs are due, and how enqueues start one. */
function readOnDemand(
  env: Env,
  int: IntReader,
): Pick<Config, 'scanMode' | 'scanFunctionName' | 'onDemandHorizonMs' | 'onDemandLingerMs'> {
  const scanFunctionName = env.SCAN_FUNCTION_NAME || undefined
  // Unset, the mode follows SCAN_FUNCTION_NAME: naming the function to start says enqueues should start it (the
  // deployed default); without it nothing could start a scan, so the scheduled runs must loop.
  const scanMode = (env.SCAN_MODE || (scanFunctionName ? 'on-demand' : 'continuous')) as ScanMode
  if (!SCAN_MODES.includes(scanMode)) throw new ConfigError('SCAN_MODE', `must be one of ${SCAN_MODES.join(', ')}`)
  // Function names, partial or full ARNs (arn:aws:lambda:region:account:function:name[:qualifier]).
  if (scanFunctionName && !/^[A-Za-z0-9_:.-]{1,170}$/.test(scanFunctionName)) {
    throw new ConfigError('SCAN_FUNCTION_NAME', 'must be a Lambda function name or ARN')
  }
  return {
    scanMode,
    scanFunctionName,
    onDemandHorizonMs: int('ON_DEMAND_HORIZON_MS', 70_000, 1_000, 15 * 60_000),
    onDemandLingerMs: int('ON_DEMAND_LINGER_MS', 1_000, 0, 60_000),
  }
}

/** A comma-separated host:port list, or undefined when the setting is empty. */
function hostPorts(name: string, raw: string | undefined): string[] | undefined {
  if (!raw) return undefined
  const nodes = raw
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
  for (const node of nodes) {
    if (!/^[^:\s]+:\d{1,5}$/.test(node)) throw new ConfigError(name, `"${node}" is not host:port`)
  }
  return nodes
}

/** REDIS_TLS_CA_FILE: read once at cold start, so a wrong path fails the deployment, not the first request. */
function readCa(path: string | undefined): string | undefined {
  if (!path) return undefined
  let pem: string
  try {
    pem = readFileSync(path, 'utf8')
  } catch (e) {
    throw new ConfigError(
      'REDIS_TLS_CA_FILE',
      `cannot be read (${(e as NodeJS.ErrnoException).code ?? String(e)}): ${path}`,
    )
  }
  if (!pem.includes('-----BEGIN CERTIFICATE-----')) {
    throw new ConfigError('REDIS_TLS_CA_FILE', `holds no PEM certificate: ${path}`)
  }
  return pem
}
