// The whole stack on one machine, as serverless.yml declares it for the `local` stage:
//   redis-server (private, AOF in .dev/redis, unless REDIS_URL is given) -> fauxqs (every target queue + DLQ)
//   -> serverless-offline (API, scan, consumer) -> EventBridge's part: a scan invocation every minute, whether or not
//      the one before has ended, as EventBridge fires (runs overlap, and the relay hands over, as in AWS); in
//      on-demand mode (SCAN_MODE=on-demand) the API also starts scans through serverless-offline's Lambda endpoint,
//      as it would through Lambda's
//   -> an SQS poller per consumer, invoking it through the Lambda endpoint (the event source mapping's part)
//   -> the addresses, written for other services' local loops (tools/sdq-poll/dev-env.ts, sdq-poll).
import { SQSClient } from '@aws-sdk/client-sqs'
import type { ChildProcess } from 'node:child_process'
import { resolve } from 'node:path'
import { startApiGate } from './api-gate'
import { allowedOriginsFrom } from './loopback-guard.mjs'
import { startRedis, type LocalRedis } from './redis-server'
import { localCredentials, startSqsProcess, type LocalSqs } from './sqs-endpoint'
import { startSqsPoller, type SqsPoller } from '../tools/sdq-poll/sqs-poller'
import { startOfflineOnFreePorts } from './offline'
import { invokeFunction } from '../tools/sdq-poll/invoke-function'
import { readServiceSpec, type ServiceSpec } from './service-config'
import { removeDevEnv, writeDevEnv } from '../tools/sdq-poll/dev-env'
import { loadConfig } from '../src/config'
import { startDashboard } from '../src/ops/dashboard/server'
import { createEngine } from '../src/store/engine'
import { startSchedulerEndpoint } from './scheduler-endpoint'

export interface DevStackOptions {
  /** The repository (serverless.yml). Default: the current directory. */
  root?: string
  stage?: string
  /** Use this Redis instead of starting one. */
  redisUrl?: string
  /** Where the private redis-server keeps its AOF; undefined with `persist: false` (tests). */
  dataDir?: string
  persist?: boolean
  /** API port; 0 or undefined: a free one. */
  httpPort?: number
  lambdaPort?: number
  sqsPort?: number
  /** Feed the example consumer (functions/consumer.ts) from its queue. Default true; false leaves the target queues
   * to another service's consumer (sdq-poll). */
  exampleConsumer?: boolean
  /** Where the stack writes its addresses for other services (tools/sdq-poll/dev-env.ts); removed on stop. Default: none. */
  envFile?: string
  /** The dashboard's port; 0 or undefined: a free one. */
  dashboardPort?: number
  /** The Scheduler-compatible API's port; 0 or undefined: a free one. */
  schedulerPort?: number
  /** Extra settings for the functions (any name of docs/settings.md). */
  env?: NodeJS.ProcessEnv
  /** serverless-offline's and the handlers' output, line by line (default: stdout). */
  onOutput?: (line: string) => void
  /** The stack's own messages (default: stdout). */
  log?: (message: string) => void
  /**
   * How often the schedule fires the scan, whether or not the run before has ended (default 60 s, as EventBridge
   * does); 0: never (on-demand mode: only enqueues start scans).
   */
  scanTickMs?: number
  /** Where the API starts the scan function in on-demand mode (default: serverless-offline's Lambda endpoint). */
  lambdaEndpoint?: string
}

export interface DevStack {
  apiUrl: string
  lambdaUrl: string
  sqsEndpoint: string
  /** The operator dashboard (src/ops/dashboard/) over the stack's Redis. */
  dashboardUrl: string
  /** The Scheduler-compatible API (@aws-sdk/client-scheduler's `endpoint`). */
  schedulerUrl: string
  redisUrl: string
  /** Target name -> local queue URL (what the functions get as QUEUES). */
  queues: Record<string, string>
  /** Target name -> its DLQ's local URL. */
  deadLetterQueues: Record<string, string>
  spec: ServiceSpec
  scanMode: string
  /**
   * Resolves (with what happened) if a part the stack started exits while it runs: the stack has then stopped
   * everything else, removed its env file, and its caller should exit non-zero. Never rejects.
   */
  exited: Promise<string>
  /** The processes the stack watches, by name: their pids (tests kill one to see the stack go down). */
  parts: Record<string, number>
  stop(): Promise<void>
}

export async function startDevStack(options: DevStackOptions = {}): Promise<DevStack> {
  const root = resolve(options.root ?? process.cwd())
  const stage = options.stage ?? 'local'
  const print = options.log ?? ((m: string) => process.stdout.write(`[dev] ${m}\n`))
  let stopping = false
  // Once stopping, the parts going down one by one make the others complain: nothing worth showing.
  const log = (m: string) => stopping || print(m)
  const stops: (() => Promise<void>)[] = []
  const stopAll = async () => {
    stopping = true
    for (const stop of stops.splice(0).reverse()) await stop().catch((e) => print(`stop failed: ${e}`))
  }
  // A part that dies while the stack runs (serverless-offline out of memory, redis-server or the SQS endpoint
  // killed) must not leave a stack that answers nothing behind a live banner and a stale .dev/env: stop it all.
  let partExited!: (what: string) => void
  const exited = new Promise<string>((resolve) => (partExited = resolve))
  const parts: Record<string, number> = {}
  const watch = (name: string, child: ChildProcess) => {
    parts[name] = child.pid!
    child.once('exit', (code, signal) => {
      if (stopping) return
      const what = `${name} exited (${code ?? signal})`
      print(`${what}: stopping the stack`)
      void stopAll().then(() => partExited(what))
    })
  }

  try {
    // Checked before anything starts: a mistyped origin is a start that fails at once, naming the setting.
    const allowedOrigins = allowedOriginsFrom({ ...process.env, ...options.env })
    const spec = await readServiceSpec(root, stage, { ...process.env, QUEUES: '' })

    let redis: LocalRedis | undefined
    let redisUrl = options.redisUrl
    if (!redisUrl) {
      const persist = options.persist ?? true
      redis = await startRedis({ dataDir: persist ? (options.dataDir ?? resolve(root, '.dev/redis')) : undefined })
      stops.push(() => redis!.stop())
      watch('redis-server', redis.process)
      redisUrl = redis.url
      log(`redis-server on ${redisUrl}${persist ? ' (AOF in .dev/redis: jobs survive a restart)' : ''}`)
    } else {
      log(`Redis: ${redisUrl.replace(/\/\/[^@/]*@/, '//***@')}`)
    }

    const sqs = await startSqsProcess(options.sqsPort ?? 0)
    stops.push(() => sqs.stop())
    watch('the local SQS endpoint', sqs.process)
    const urls = await createQueues(sqs, spec)
    const queues: Record<string, string> = {}
    const deadLetterQueues: Record<string, string> = {}
    for (const q of spec.queues)
      (q.role === 'dlq' ? deadLetterQueues : queues)[q.target] = urls.get(q.logicalId)!.queueUrl
    log(`local SQS on ${sqs.endpoint}: ${spec.queues.map((q) => q.queueName).join(', ')}`)

    const offline = await startOfflineOnFreePorts({
      root,
      stage,
      lambdaPort: options.lambdaPort,
      onOutput: options.onOutput,
      env: (lambdaPort) => ({
        ...process.env,
        ...options.env,
        REDIS_URL: redisUrl,
        // On-demand mode: where the API starts the scan function (Lambda's Invoke API, served by serverless-offline).
        LAMBDA_ENDPOINT: options.lambdaEndpoint ?? `http://127.0.0.1:${lambdaPort}`,
        QUEUES: Object.entries(queues)
          .map(([name, url]) => `${name}=${url}`)
          .join(','),
        SQS_ENDPOINT: sqs.endpoint,
        AWS_REGION: process.env.AWS_REGION ?? 'us-east-1',
        // The local SQS endpoint takes any credentials; these keep the SDK from looking for real ones.
        AWS_ACCESS_KEY_ID: localCredentials.accessKeyId,
        AWS_SECRET_ACCESS_KEY: localCredentials.secretAccessKey,
      }),
    })
    const functionEnv = offline.env
    const scanMode = functionEnv.SCAN_MODE || 'continuous'
    stops.push(() => offline.stop())
    watch('serverless-offline', offline.process)
    // The API's address: a gate that queues requests beyond what serverless-offline can take at once (local/api-gate.ts).
    const gate = await startApiGate({
      target: offline.apiUrl,
      port: options.httpPort || 0,
      allowedOrigins,
    })
    stops.push(() => gate.close())

    // The dashboard reads the same Redis with the functions' settings (key prefix, shards).
    const dashboardEngine = createEngine(loadConfig(functionEnv), { maxRetriesPerRequest: 1, commandTimeoutMs: 5_000 })
    stops.push(() => dashboardEngine.close())
    const dashboard = await startDashboard(dashboardEngine, { port: options.dashboardPort ?? 0 })
    stops.push(() => dashboard.close())
    const scheduler = await startSchedulerEndpoint(functionEnv, options.schedulerPort ?? 0)
    stops.push(() => scheduler.close())
    log(`scheduler API ${scheduler.url}`)

    // The event source mappings: one poller per consumer function.
    const client = new SQSClient({ endpoint: sqs.endpoint, region: 'us-east-1', credentials: localCredentials })
    stops.push(async () => client.destroy())
    for (const consumer of options.exampleConsumer === false ? [] : spec.consumers) {
      const queue = urls.get(consumer.queueLogicalId)
      if (!queue)
        throw new Error(`${consumer.function}: its queue ${consumer.queueLogicalId} is not a queue of this stack`)
      const fnName = spec.functionNames[consumer.function]!
      const poller: SqsPoller = startSqsPoller({
        sqs: client,
        queueUrl: queue.queueUrl,
        queueArn: queue.queueArn,
        batchSize: consumer.batchSize,
        // biome-ignore lint/suspicious/noExplicitAny: the handler answer is passed through to the poller untouched
        invoke: (event) => invokeFunction(offline.lambdaUrl, fnName, event) as Promise<any>,
        onError: (e) => log(`${consumer.function}: ${e instanceof Error ? e.message : e}`),
      })
      stops.push(() => poller.stop())
    }

    // EventBridge's part, at its pace: a tick every minute (the first at once), each an invocation of its own.
    const tickMs = options.scanTickMs ?? 60_000
    if (spec.functionNames.scan && tickMs > 0) stops.push(tick(offline.lambdaUrl, spec.functionNames.scan, log, tickMs))

    if (options.envFile) {
      const envFile = options.envFile
      writeDevEnv(envFile, {
        DELAY_QUEUE_API_URL: gate.url,
        SCHEDULER_ENDPOINT: scheduler.url,
        REDIS_URL: redisUrl,
        QUEUES: Object.entries(queues)
          .map(([name, url]) => `${name}=${url}`)
          .join(','),
        DEAD_LETTER_QUEUES: Object.entries(deadLetterQueues)
          .map(([name, url]) => `${name}=${url}`)
          .join(','),
        SQS_ENDPOINT: sqs.endpoint,
        AWS_REGION: process.env.AWS_REGION ?? 'us-east-1',
      })
      stops.push(async () => removeDevEnv(envFile))
      log(`addresses for other services in ${envFile}`)
    }

    return {
      apiUrl: gate.url,
      lambdaUrl: offline.lambdaUrl,
      sqsEndpoint: sqs.endpoint,
      dashboardUrl: dashboard.url,
      schedulerUrl: scheduler.url,
      redisUrl,
      queues,
      deadLetterQueues,
      spec,
      scanMode,
      exited,
      parts,
      stop: stopAll,
    }
  } catch (error) {
    await stopAll()
    throw error
  }
}

async function createQueues(sqs: Pick<LocalSqs, 'createQueue'>, spec: ServiceSpec) {
  const created = new Map<string, { queueUrl: string; queueArn: string }>()
  for (const q of spec.queues) {
    const attributes = { ...q.attributes }
    if (q.redrive) {
      const dlq = created.get(q.redrive.dlqLogicalId)
      if (!dlq) throw new Error(`${q.queueName}: its DLQ ${q.redrive.dlqLogicalId} is not a queue of this stack`)
      attributes.RedrivePolicy = JSON.stringify({
        deadLetterTargetArn: dlq.queueArn,
        maxReceiveCount: q.redrive.maxReceiveCount,
      })
    }
    created.set(q.logicalId, await sqs.createQueue(q.queueName, attributes))
  }
  return created
}

/**
 * Invokes the scan function every `everyMs`, the first time at once, without waiting for the invocation before
 * (EventBridge does not: a run that lasts past the next tick runs beside the next one). Returns its stop(), which
 * waits for the invocations still running.
 */
function tick(lambdaUrl: string, functionName: string, log: (m: string) => void, everyMs: number): () => Promise<void> {
  const abort = new AbortController()
  const running = new Set<Promise<void>>()
  const fire = () => {
    const run = invokeFunction(
      lambdaUrl,
      functionName,
      { source: 'local.dev', 'detail-type': 'Scheduled Event' },
      abort.signal,
    )
      .then(() => {})
      .catch((error) => {
        if (!abort.signal.aborted) log(`scan: ${error instanceof Error ? error.message : error}`)
      })
      .finally(() => running.delete(run))
    running.add(run)
  }
  fire()
  const timer = setInterval(fire, everyMs)
  return async () => {
    clearInterval(timer)
    abort.abort()
    await Promise.all([...running])
  }
}
