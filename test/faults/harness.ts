// The fault suite's stage: a private redis-server and fauxqs (each in its own process), scanner workers as separate
// OS processes, and the audit that counts lost and duplicated jobs.
import { sleep } from '../../devkit/sleep'
import { spawn, type ChildProcess } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { rmSync } from 'node:fs'
import { resolve } from 'node:path'
import { DeleteQueueCommand, SQSClient } from '@aws-sdk/client-sqs'
import { startRedis, stopChild, type LocalRedis, type LocalRedisOptions } from '../../local/redis-server'
import { localCredentials, startSqsProcess, type LocalSqs } from '../../local/sqs-endpoint'
import { loadConfig, type Config } from '../../src/config'
import { createEngine, type Engine } from '../../src/store/engine'
import type { NewJob } from '../../src/store/job-store'
import { runMarker } from '../support/leftovers'
import { countIds, createQueue, receiveAll } from '../support/sqs'
import { startTogether } from '../../local/start-together'

const ROOT = resolve(__dirname, '../..')

let bundled: Promise<string> | undefined
/** The worker bundled once per test process, the way Lambda gets our code (Lua inlined as text). */
export function workerBundle(): Promise<string> {
  bundled ??= (async () => {
    // @ts-expect-error plain ESM helper without types
    const { bundle } = (await import('../../scripts/run-ts.mjs')) as {
      bundle(entry: string, out: string): Promise<string>
    }
    const dir = resolve(ROOT, '.build', `faults-${process.pid}`)
    process.once('exit', () => rmSync(dir, { recursive: true, force: true }))
    return bundle(resolve(__dirname, 'scanner-worker.ts'), dir)
  })()
  return bundled
}

export interface Stage {
  redis: LocalRedis
  sqs: LocalSqs
  sqsClient: SQSClient
  queueUrl: string
  /** The engine's configuration as a worker would read it (also used in this process). */
  env: Record<string, string>
  config: Config
  engine: Engine
  close(): Promise<void>
}

export interface StageOptions {
  redis?: LocalRedisOptions
  env?: Record<string, string>
}

/** The engine settings every fault scenario runs with, short of how to reach Redis: one "orders" queue, short leases
 * and backoffs so that faults play out in seconds, and a fresh key prefix (starting with `prefix`). */
export function stageEnv(prefix: string, queueUrl: string, sqsEndpoint: string): Record<string, string> {
  return {
    QUEUES: JSON.stringify({ orders: queueUrl }),
    SQS_ENDPOINT: sqsEndpoint,
    AWS_REGION: 'us-east-1',
    KEY_PREFIX: `${prefix}-${randomBytes(3).toString('hex')}`,
    SHARDS: '2',
    DUE_BUCKETS: '1024',
    CLAIM_BATCH_SIZE: '100',
    LEASE_MS: '2000',
    SAFETY_MARGIN_MS: '0',
    POLL_INTERVAL_MS: '200',
    DISPATCH_BACKOFF_BASE_MS: '100',
    DISPATCH_BACKOFF_MAX_MS: '1000',
  }
}

/**
 * fauxqs with one target queue ("orders"), for a case that brings its own Redis (Sentinel, Cluster); the steps that
 * delete the queue and stop it all go onto `cleanup`.
 */
export async function startSqsStage(cleanup: (() => Promise<unknown>)[]) {
  const sqs = await startSqsProcess()
  cleanup.push(() => sqs.stop())
  const sqsClient = new SQSClient({ endpoint: sqs.endpoint, region: 'us-east-1', credentials: localCredentials })
  const queue = await createQueue(sqsClient, 'orders')
  cleanup.push(async () => {
    await sqsClient.send(new DeleteQueueCommand({ QueueUrl: queue.url }))
    sqsClient.destroy()
  })
  return { endpoint: sqs.endpoint, sqsClient, queueUrl: queue.url }
}

/** Redis + fauxqs + one target queue ("orders") and an engine on them, in this process. */
export async function startStage(options: StageOptions = {}): Promise<Stage> {
  const [redis, sqs] = await startTogether(startRedis(options.redis), startSqsProcess())
  const sqsClient = new SQSClient({
    endpoint: sqs.endpoint,
    region: 'us-east-1',
    credentials: localCredentials,
    maxAttempts: 3,
  })
  const queue = await createQueue(sqsClient, 'orders')
  const env: Record<string, string> = {
    REDIS_URL: redis.url,
    ...stageEnv('f', queue.url, sqs.endpoint),
    ...options.env,
  }
  const config = loadConfig(env)
  const engine = createEngine(config, { commandTimeoutMs: 2_000 })
  // The suite restarts and cuts Redis on purpose: reconnect errors are expected here, not news.
  engine.redis.on('error', () => undefined)
  const stage: Stage = {
    redis,
    sqs,
    sqsClient,
    queueUrl: queue.url,
    env,
    config,
    engine,
    async close() {
      await engine.close().catch(() => undefined)
      await sqsClient.send(new DeleteQueueCommand({ QueueUrl: queue.url })).catch(() => undefined)
      sqsClient.destroy()
      // stage.redis, not the first one: a test that kills Redis restarts it there, and that one must stop too.
      await Promise.all([stage.redis.stop(), sqs.stop()])
    },
  }
  return stage
}

export interface Worker {
  child: ChildProcess
  ready: Promise<void>
  /** Counted loop reports and log lines, for assertions and figures. */
  lines: Record<string, unknown>[]
  /** Sends SQS may have taken without answering, as the worker reported them (summed, not kept as lines: a slow
   * SQS makes many, and they must not crowd the loop reports out of `lines`). */
  unanswered: { entries: number; maybeSentJobs: number }
  kill9(): Promise<void>
  stop(): Promise<void>
}

/** A scanner worker process with the stage's environment (plus overrides). */
export async function spawnScanner(env: Record<string, string>): Promise<Worker> {
  const entry = await workerBundle()
  const child = spawn(process.execPath, [entry], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', NODE_PATH: resolve(ROOT, 'node_modules'), ...runMarker(), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  const lines: Record<string, unknown>[] = []
  const unanswered = { entries: 0, maybeSentJobs: 0 }
  let buffer = ''
  let onReady: () => void = () => {}
  const ready = new Promise<void>((ok, fail) => {
    onReady = ok
    child.once('exit', (code, signal) => fail(new Error(`scanner worker exited (${code ?? signal}) before ready`)))
  })
  ready.catch(() => undefined)
  child.stdout!.on('data', (d) => {
    buffer += d
    for (let at = buffer.indexOf('\n'); at >= 0; at = buffer.indexOf('\n')) {
      const line = buffer.slice(0, at)
      buffer = buffer.slice(at + 1)
      try {
        const entry = JSON.parse(line) as Record<string, unknown>
        if (entry.event === 'ready') onReady()
        else if (entry.event === 'unanswered') unanswered.entries += Number(entry.entries)
        else if (entry.event === 'maybe-sent') unanswered.maybeSentJobs += Number(entry.jobs)
        else if (lines.length < 10_000) lines.push(entry)
      } catch {
        // not ours
      }
    }
  })
  let stderr = ''
  child.stderr!.on('data', (d) => (stderr = (stderr + d).slice(-4000)))
  child.once('exit', (code) => {
    if (code && code !== 0) lines.push({ event: 'exit', code, stderr })
  })
  const exited = () => child.exitCode !== null || child.signalCode !== null
  return {
    child,
    ready,
    lines,
    unanswered,
    kill9: () =>
      exited()
        ? Promise.resolve()
        : new Promise<void>((ok) => {
            child.once('exit', () => ok())
            child.kill('SIGKILL')
          }),
    stop: () => stopChild(child),
  }
}

let seq = 0
/** `n` jobs due now, ids unique to this run. */
export function dueJobs(n: number, tag: string, payload: unknown = { n: 0 }): NewJob[] {
  const run = `${tag}-${(++seq).toString(36)}`
  return Array.from({ length: n }, (_, i) => ({
    id: `${run}-${i}`,
    queue: 'orders',
    payloadJson: JSON.stringify(payload),
    due: { delayMs: 0 },
  }))
}

/** Enqueues in chunks (one pipeline per shard each); returns the ids Redis accepted. */
export async function enqueueAll(engine: Engine, jobs: NewJob[], chunk = 1_000): Promise<string[]> {
  const accepted: string[] = []
  for (let i = 0; i < jobs.length; i += chunk) {
    const results = await engine.store.enqueueMany(jobs.slice(i, i + chunk))
    for (const r of results) if (!(r instanceof Error)) accepted.push(r.id)
  }
  return accepted
}

/** Polls until nothing is pending or inflight in Redis (or the time is up); returns whether it drained. */
export async function waitForDrain(engine: Engine, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs
  while (Date.now() < deadline) {
    try {
      const stats = await engine.store.stats()
      const pending = Object.values(stats.queues).reduce((n, q) => n + q.pending, 0)
      if (pending === 0 && stats.inflight === 0) return true
    } catch {
      // Redis restarting: ask again
    }
    await sleep(200)
  }
  return false
}

export interface Audit {
  accepted: number
  received: number
  distinct: number
  /** Accepted, never reached SQS, and not pending or dead in Redis. */
  lost: string[]
  /** Extra copies received (a job received 3 times counts 2). */
  duplicated: number
  /** The most copies of one job received. */
  maxCopies: number
  /** Accepted and still in Redis (pending, inflight or dead). */
  stillInRedis: number
  dead: number
  /** Received ids that were never accepted (enqueue failed on the client's side but reached Redis). */
  unaccepted: number
}

/** Receives everything in the queue and compares it with what was accepted and what Redis still holds. */
export async function audit(stage: Stage, accepted: Iterable<string>): Promise<Audit> {
  const counts = countIds(await receiveAll(stage.sqsClient, stage.queueUrl, 8))
  const inRedis = new Set<string>()
  const redis = stage.engine.redis as import('ioredis').Redis
  for (const shard of stage.engine.keys.shards) for (const id of await redis.hkeys(shard.jobs)) inRedis.add(id)
  const dead = (await stage.engine.store.stats()).dead
  const acceptedSet = new Set(accepted)
  const lost: string[] = []
  for (const id of acceptedSet) if (!counts.has(id) && !inRedis.has(id)) lost.push(id)
  let duplicated = 0
  let maxCopies = 0
  let received = 0
  let unaccepted = 0
  for (const [id, n] of counts) {
    received += n
    duplicated += n - 1
    maxCopies = Math.max(maxCopies, n)
    if (!acceptedSet.has(id)) unaccepted++
  }
  return {
    accepted: acceptedSet.size,
    received,
    distinct: counts.size,
    lost,
    duplicated,
    maxCopies,
    stillInRedis: [...acceptedSet].filter((id) => inRedis.has(id)).length,
    dead,
    unaccepted,
  }
}

/** Uniform random integer in [min, max]. */
export const between = (min: number, max: number) => min + Math.floor(Math.random() * (max - min + 1))
