// The chaos run's parts, all real and on loopback: a Redis primary with two replicas watched by three sentinels, the
// local SQS (fauxqs, its own process) behind the SQS fault proxy, the API (the real handler) behind a partitionable
// primary endpoint, and scanner processes: the first through Sentinel, the others each through a partitionable
// primary endpoint of its own. close() stops everything it started, in reverse order, also after a failure.
import { DeleteQueueCommand, SQSClient } from '@aws-sdk/client-sqs'
import { startSentinelSetup, type LocalSentinelSetup } from '../../local/redis-sentinel'
import { stopChild, type LocalRedis } from '../../local/redis-server'
import { localCredentials, startSqsProcess, type LocalSqs } from '../../local/sqs-endpoint'
import { startSqsFaultProxy, type SqsFaultProxy } from '../support/sqs-fault-proxy'
import { loadConfig } from '../../src/config'
import { createEngine, type Engine } from '../../src/store/engine'
import { randomBytes } from 'node:crypto'
import { rmSync } from 'node:fs'
import { CreateQueueCommand } from '@aws-sdk/client-sqs'
import { startProcess } from './processes'
import { quiet } from './quiet'
import { startPrimaryProxy, type PrimaryProxy } from './primary-proxy'
import { startScanner, stopAll, type ChaosScanner } from './scanners'

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
  setup: LocalSentinelSetup
  /** The Redis servers as they run now (a killed primary is replaced by its restart). */
  nodes: LocalRedis[]
  sqs: LocalSqs
  sqsClient: SQSClient
  queueUrl: string
  sqsProxy: SqsFaultProxy
  apiProxy: PrimaryProxy
  api: { url: string }
  scanners: ChaosScanner[]
  /** Nodes the nemesis started again (each in a directory of its own), stopped and removed by close(). */
  restarted: { server: LocalRedis; dir: string }[]
  /** For the runner's wait for the drain only (the checker never reads Redis). */
  monitor: Engine
  close(): Promise<void>
}

export async function startStage(scannerCount: number, workerMaxMs: number): Promise<ChaosStage> {
  const steps: (() => Promise<unknown>)[] = []
  const close = async () => {
    for (const step of steps.splice(0).reverse()) await step().catch(() => undefined)
  }
  try {
    const setup = await startSentinelSetup({ replicas: 2, sentinels: 3, downAfterMs: 1_000 })
    steps.push(() => setup.stop())
    const restarted: ChaosStage['restarted'] = []
    steps.push(async () => {
      for (const { server, dir } of restarted) {
        await server.stop()
        rmSync(dir, { recursive: true, force: true })
      }
    })
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
    const sqsProxy = await startSqsFaultProxy({ target: sqs.endpoint })
    steps.push(() => sqsProxy.close())
    const base = {
      QUEUES: JSON.stringify({ orders: queue.url }),
      SQS_ENDPOINT: sqsProxy.url,
      AWS_REGION: 'us-east-1',
      KEY_PREFIX: `chaos-${randomBytes(3).toString('hex')}`,
      ...CHAOS_SETTINGS,
    }
    const sentinelEnv = { REDIS_SENTINELS: setup.sentinels.join(','), REDIS_SENTINEL_MASTER: setup.masterName }
    const primary = () => setup.currentPrimary()

    const apiProxy = await startPrimaryProxy(primary)
    steps.push(() => apiProxy.close())
    const apiProcess = await startProcess('api-entry', { ...base, REDIS_URL: apiProxy.url })
    steps.push(() => stopChild(apiProcess.child))
    const api = { url: String(apiProcess.ready.url) }
    const monitor = createEngine(loadConfig({ ...base, ...sentinelEnv }), { commandTimeoutMs: 2_000, logger: quiet })
    monitor.redis.on('error', () => undefined)
    steps.push(() => monitor.close())

    const scanners: ChaosScanner[] = []
    steps.push(() => stopAll(scanners))
    for (let i = 0; i < scannerCount; i++) {
      const proxy = i === 0 ? undefined : await startPrimaryProxy(primary)
      if (proxy) steps.push(() => proxy.close())
      const env = { ...base, WORKER_MAX_MS: String(workerMaxMs), ...(proxy ? { REDIS_URL: proxy.url } : sentinelEnv) }
      scanners.push({ name: `scanner-${i + 1}${proxy ? '' : '-sentinel'}`, proxy, env, busy: false })
    }
    await Promise.all(scanners.map((s) => startScanner(s)))
    return {
      setup,
      nodes: [setup.primary, ...setup.replicas],
      restarted,
      sqs,
      sqsClient,
      queueUrl: queue.url,
      sqsProxy,
      apiProxy,
      api,
      scanners,
      monitor,
      close,
    }
  } catch (e) {
    await close()
    throw e
  }
}
