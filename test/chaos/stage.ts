// The chaos run's parts, all real and on loopback: a Redis primary with two replicas watched by three sentinels, the
// local SQS (fauxqs, its own process) behind the SQS fault proxy, the API (the real handler) behind a partitionable
// primary endpoint, and scanner processes: the first through Sentinel, the others each through a partitionable
// primary endpoint of its own. close() stops everything it started, in reverse order, also after a failure.
import { DeleteQueueCommand, SQSClient } from '@aws-sdk/client-sqs'
import { startSentinelSetup, type LocalSentinelSetup } from '../../local/redis-sentinel'
import { startRedisCluster, type LocalRedisCluster } from '../../local/redis-cluster'
import { stopChild, type LocalRedis } from '../../local/redis-server'
import { localCredentials, startSqsProcess, type LocalSqs } from '../../local/sqs-endpoint'
import { startSqsFaultProxy, type SqsFaultProxy } from '../support/sqs-fault-proxy'
import { loadConfig } from '../../src/config'
import { createEngine, type Engine } from '../../src/store/engine'
import { randomBytes } from 'node:crypto'
import { CreateQueueCommand } from '@aws-sdk/client-sqs'
import { startProcess } from './processes'
import { quiet } from './quiet'
import { startPrimaryProxy, type PrimaryProxy } from './primary-proxy'
import { startScanner, stopAll, type ChaosScanner } from './scanners'
import { FIFO_QUEUE } from './fifo-lanes'
import type { EnvironmentFault, SendStart } from './history'

/** Shortened timings so faults play out in seconds (the fault suite's); replication as by default (auto). */
export const CHAOS_SETTINGS = {
  SHARDS: '2',
  DUE_BUCKETS: '1024',
  SAFETY_MARGIN_MS: '0',
  POLL_INTERVAL_MS: '200',
  DISPATCH_BACKOFF_BASE_MS: '100',
  DISPATCH_BACKOFF_MAX_MS: '1000',
  CLAIM_BATCH_SIZE: '50',
  MAX_IN_FLIGHT: '50',
  LEASE_MS: '2000',
  // SQS outages here last seconds, not minutes: a job must not run out of dispatch attempts during one.
  MAX_DISPATCH_ATTEMPTS: '100',
  RUN_MS: '20000',
}

export interface ChaosStage {
  /** The Sentinel setup, or (--cluster) the Redis Cluster: exactly one is set. */
  setup?: LocalSentinelSetup
  cluster?: LocalRedisCluster
  /** The Redis servers as they run now (a killed primary is replaced by its restart). */
  nodes: LocalRedis[]
  sqs: LocalSqs
  sqsClient: SQSClient
  queueUrl: string
  /** The FIFO target (QUEUES name orders.fifo). */
  fifoQueueUrl: string
  sqsProxy: SqsFaultProxy
  /** Sentinel only: a Cluster client follows the nodes itself, so there is no single endpoint to cut. */
  apiProxy?: PrimaryProxy
  api: { url: string }
  scanners: ChaosScanner[]
  /** The scanners' sends that SQS may have taken without answering, as they happen (history.environment). */
  environment: EnvironmentFault[]
  /** The scanners' flow-keyed send starts, as they print them (history.sendStarts). */
  sendStarts: SendStart[]
  /** For the runner's wait for the drain only (the checker never reads Redis). */
  monitor: Engine
  close(): Promise<void>
}

/** With `cluster`: 3 masters with a replica each (SHARDS=6, two per master), instead of a primary with 2 replicas. */
export async function startStage(scannerCount: number, workerMaxMs: number, cluster = false): Promise<ChaosStage> {
  const steps: (() => Promise<unknown>)[] = []
  const close = async () => {
    for (const step of steps.splice(0).reverse()) await step().catch(() => undefined)
  }
  try {
    const setup = cluster ? undefined : await startSentinelSetup({ replicas: 2, sentinels: 3 })
    if (setup) steps.push(() => setup.stop())
    const redisCluster = cluster
      ? await startRedisCluster({ masters: 3, replicas: 1, nodeTimeoutMs: 2_000 })
      : undefined
    if (redisCluster) steps.push(() => redisCluster.stop())
    const sqs = await startSqsProcess()
    steps.push(() => sqs.stop())
    const sqsClient = new SQSClient({ endpoint: sqs.endpoint, region: 'us-east-1', credentials: localCredentials })
    const queueName = `chaos-orders-${randomBytes(3).toString('hex')}`
    const created = await sqsClient.send(
      new CreateQueueCommand({ QueueName: queueName, Attributes: { VisibilityTimeout: '60' } }),
    )
    const queue = { url: created.QueueUrl! }
    steps.push(async () => {
      await sqsClient.send(new DeleteQueueCommand({ QueueUrl: queue.url }))
      sqsClient.destroy()
    })
    // The FIFO target: deduplication ids come from the engine (job id, creation time, version).
    const fifo = await sqsClient.send(
      new CreateQueueCommand({
        QueueName: `${queueName}.fifo`,
        Attributes: { VisibilityTimeout: '60', FifoQueue: 'true' },
      }),
    )
    const fifoQueue = { url: fifo.QueueUrl! }
    steps.push(() => sqsClient.send(new DeleteQueueCommand({ QueueUrl: fifoQueue.url })))
    const sqsProxy = await startSqsFaultProxy({ target: sqs.endpoint })
    steps.push(() => sqsProxy.close())
    const base = {
      QUEUES: JSON.stringify({ orders: queue.url, [FIFO_QUEUE]: fifoQueue.url }),
      SQS_ENDPOINT: sqsProxy.url,
      AWS_REGION: 'us-east-1',
      KEY_PREFIX: `chaos-${randomBytes(3).toString('hex')}`,
      ...CHAOS_SETTINGS,
      ...(redisCluster ? { SHARDS: '6' } : {}),
    }
    // How a client without a partitionable endpoint of its own reaches Redis: Sentinel, or the Cluster's nodes.
    const directEnv: Record<string, string> = setup
      ? { REDIS_SENTINELS: setup.sentinels.join(','), REDIS_SENTINEL_MASTER: setup.masterName }
      : { REDIS_CLUSTER_NODES: redisCluster!.addresses.join(',') }
    const primary = () => setup!.currentPrimary()

    const apiProxy = setup ? await startPrimaryProxy(primary) : undefined
    if (apiProxy) steps.push(() => apiProxy.close())
    const apiProcess = await startProcess('api-entry', {
      ...base,
      ...(apiProxy ? { REDIS_URL: apiProxy.url } : directEnv),
    })
    steps.push(() => stopChild(apiProcess.child))
    const api = { url: String(apiProcess.ready.url) }
    const monitor = createEngine(loadConfig({ ...base, ...directEnv }), { commandTimeoutMs: 2_000, logger: quiet })
    monitor.redis.on('error', () => undefined)
    steps.push(() => monitor.close())

    const scanners: ChaosScanner[] = []
    const environment: EnvironmentFault[] = []
    const sendStarts: SendStart[] = []
    steps.push(() => stopAll(scanners))
    for (let i = 0; i < scannerCount; i++) {
      const proxy = i === 0 || !setup ? undefined : await startPrimaryProxy(primary)
      if (proxy) steps.push(() => proxy.close())
      const env = { ...base, WORKER_MAX_MS: String(workerMaxMs), ...(proxy ? { REDIS_URL: proxy.url } : directEnv) }
      const via = proxy ? '' : setup ? '-sentinel' : ''
      scanners.push({
        name: `scanner-${i + 1}${via}`,
        ...(proxy ? { proxy } : {}),
        env,
        busy: false,
        environment,
        sendStarts,
      })
    }
    await Promise.all(scanners.map((s) => startScanner(s)))
    return {
      ...(setup ? { setup } : { cluster: redisCluster! }),
      nodes: setup ? [setup.primary, ...setup.replicas] : [],
      sqs,
      sqsClient,
      queueUrl: queue.url,
      fifoQueueUrl: fifoQueue.url,
      sqsProxy,
      ...(apiProxy ? { apiProxy } : {}),
      api,
      scanners,
      environment,
      sendStarts,
      monitor,
      close,
    }
  } catch (e) {
    await close()
    throw e
  }
}
