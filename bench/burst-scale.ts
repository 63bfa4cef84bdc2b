// `npm run bench:burst-scale [-- --jobs 200000 --workers 1,2,4 --mb 442 --rounds 1]`: a backlog due at once drained
// by k scan workers side by side, each a fresh Node process running the scan function's handler with a worker's
// event (src/scan/run/fan-out.ts, src/scan/run/worker.ts) in a cgroup of its own with Lambda's CPU share for `mb`
// (bench/cgroup.ts: 442 MB = 0.25 of a CPU, so that 4 workers take one of the machine's two cores). Per k: jobs/s
// (jobs / time from the workers' start to the last one's end: each ends 500 ms after its last work, taken off),
// scaling efficiency (rate with k ÷ (k × rate with one)), redis-server CPU µs per job, duplicates (jobs sent more
// than once, from the workers' reports and the queue's count) and the last-in-SQS time. On one redis-server, and with
// `--cluster` on a local 3-master Redis Cluster (SHARDS=12; Redis CPU summed over the masters). Needs root and
// cgroup v1.
import { GetQueueAttributesCommand, SQSClient } from '@aws-sdk/client-sqs'
import { spawn } from 'node:child_process'
import { build } from 'esbuild'
import { readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { type Config, loadConfig } from '../src/config'
import { createEngine } from '../src/store/engine'
import { startRedisCluster } from '../local/redis-cluster'
import { WORKER_IDLE_MS } from '../src/scan/run/worker'
import { LambdaCgroup } from './cgroup'
import { benchJob, jobId } from './data'
import { flush, processCpuSeconds, startBenchEnv, type BenchEnv } from './env'
import { runMain } from './main'
import { inFlight } from './stats'

const arg = (name: string, fallback: string) => {
  const i = process.argv.indexOf(`--${name}`)
  return i > 0 ? process.argv[i + 1]! : fallback
}
const JOBS = Number(arg('jobs', '200000'))
const WORKERS = arg('workers', '1,2,4').split(',').map(Number)
const MB = Number(arg('mb', '442'))
const ROUNDS = Number(arg('rounds', '1'))
const CLUSTER = process.argv.includes('--cluster')

/** Where the jobs live: one redis-server, or the 3-master Cluster. */
interface Target {
  label: string
  /** The scan function's Redis settings. */
  vars: Record<string, string>
  config(queueUrl: string): Config
  flush(): Promise<void>
  /** CPU seconds of every redis-server so far. */
  cpuSeconds(): number
  stop(): Promise<void>
}

function singleRedis(env: BenchEnv): Target {
  return {
    label: 'one redis-server',
    vars: { REDIS_URL: env.redis.url },
    config: (queueUrl) => env.config(queueUrl),
    flush: () => flush(env.admin),
    cpuSeconds: () => processCpuSeconds(env.redis.process.pid!),
    stop: async () => {},
  }
}

async function cluster(env: BenchEnv): Promise<Target> {
  const c = await startRedisCluster({ masters: 3 })
  const admins = c.nodes.map((n) => c.connect(n))
  const vars = { REDIS_CLUSTER_NODES: c.addresses.join(','), SHARDS: '12' }
  return {
    label: '3-master Cluster, SHARDS=12',
    vars,
    config: (queueUrl) => loadConfig({ ...vars, SQS_ENDPOINT: env.sqs.endpoint, QUEUES: `bench=${queueUrl}` }),
    flush: async () => void (await Promise.all(admins.map((a) => a.flushall()))),
    cpuSeconds: () => c.nodes.reduce((n, node) => n + processCpuSeconds(node.server.process.pid!), 0),
    stop: async () => {
      for (const a of admins) a.disconnect()
      await c.stop()
    },
  }
}

const CHILD = `
const fs = require('fs')
const { handler } = require(process.env.BUNDLE)
;(async () => {
  const deadline = Number(process.env.DEADLINE)
  const startAt = Number(process.env.START_AT)
  while (Date.now() < startAt) await new Promise((r) => setTimeout(r, 5))
  const t = Date.now()
  const report = await handler({ source: 'sdq.scan-worker', 'detail-type': 'Scan Worker', deadline, startedBy: 'bench', worker: Number(process.env.WORKER) }, {
    awsRequestId: 'bench-' + process.env.WORKER, functionName: 'scan', getRemainingTimeInMillis: () => deadline + 5000 - Date.now(),
  })
  fs.writeFileSync(process.env.RESULT_FILE, JSON.stringify({ ...report, startedAt: t, endedAt: Date.now() }))
  process.exit(0)
})().catch((e) => { console.error(e); process.exit(1) })
`

interface WorkerResult {
  dispatched: number
  drained: boolean
  startedAt: number
  endedAt: number
  cpuMs: number
}

async function approximateCount(env: BenchEnv, queueUrl: string): Promise<number> {
  const sqs = new SQSClient({
    endpoint: env.sqs.endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  })
  try {
    const { Attributes } = await sqs.send(
      new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: ['ApproximateNumberOfMessages'] }),
    )
    return Number(Attributes?.ApproximateNumberOfMessages ?? 0)
  } finally {
    sqs.destroy()
  }
}

async function drainWith(env: BenchEnv, target: Target, bundle: string, k: number, round: number) {
  await target.flush()
  const queue = await env.queue(`burst-scale-${k}`)
  try {
    const engine = createEngine(target.config(queue.url))
    const jobs = Array.from({ length: JOBS }, (_, i) => benchJob(jobId(`s${k}r${round}`, i), { delayMs: 0 }))
    await inFlight(Math.ceil(JOBS / 100), 8, async (b) => {
      for (const r of await engine.store.enqueueMany(jobs.slice(b * 100, b * 100 + 100)))
        if (r instanceof Error) throw r
    })
    await engine.close()
    // Every worker loads its bundle first, then all start claiming at the same instant.
    const startAt = Date.now() + 3_000
    const redisCpu0 = target.cpuSeconds()
    const results = await Promise.all(
      Array.from({ length: k }, async (_, w) => {
        const resultFile = join(tmpdir(), `sdq-burst-scale-${process.pid}-${w}.json`)
        rmSync(resultFile, { force: true })
        const group = new LambdaCgroup(`sdq-burst-scale-${process.pid}-${w}`, MB, 100)
        try {
          const { command, args } = group.wrap(process.execPath, ['-e', CHILD])
          const child = spawn(command, args, {
            stdio: ['ignore', 'ignore', 'inherit'],
            env: {
              ...process.env,
              BUNDLE: bundle,
              RESULT_FILE: resultFile,
              NODE_PATH: resolve(process.cwd(), 'node_modules'),
              ...target.vars,
              SQS_ENDPOINT: env.sqs.endpoint,
              QUEUES: `bench=${queue.url}`,
              AWS_REGION: 'us-east-1',
              AWS_LAMBDA_FUNCTION_MEMORY_SIZE: String(MB),
              POWERTOOLS_LOG_LEVEL: 'ERROR',
              POWERTOOLS_METRICS_DISABLED: 'true',
              SAFETY_MARGIN_MS: '1000',
              START_AT: String(startAt),
              DEADLINE: String(startAt + 600_000),
              WORKER: String(w + 1),
            },
          })
          const code = await new Promise<number | null>((done, fail) => {
            child.once('error', fail)
            child.once('exit', (c) => done(c))
          })
          if (code !== 0) throw new Error(`worker ${w + 1} exited with ${code}`)
          const report = JSON.parse(readFileSync(resultFile, 'utf8'))
          return { ...report, cpuMs: group.figures().cpuMs } as WorkerResult
        } finally {
          rmSync(resultFile, { force: true })
          group.remove()
        }
      }),
    )
    const redisCpuS = target.cpuSeconds() - redisCpu0
    const sent = results.reduce((n, r) => n + r.dispatched, 0)
    // The last job went into SQS before the last worker's idle wait.
    const lastInSqsMs = Math.max(...results.map((r) => r.endedAt)) - startAt - WORKER_IDLE_MS
    const inQueue = await approximateCount(env, queue.url)
    return {
      k,
      sent,
      duplicates: sent - JOBS,
      inQueue,
      lastInSqsMs,
      jobsPerSec: JOBS / (lastInSqsMs / 1000),
      redisUsPerJob: (redisCpuS * 1e6) / JOBS,
      workerUsPerJob: (results.reduce((n, r) => n + r.cpuMs, 0) * 1000) / sent,
      drained: results.every((r) => r.drained),
    }
  } finally {
    await queue.remove()
  }
}

async function main() {
  if (!LambdaCgroup.available()) throw new Error('bench:burst-scale needs root and cgroup v1 (bench/cgroup.ts)')
  // The scan function as Lambda runs it: one esbuild bundle (the Lua scripts inlined), node_modules left outside.
  const bundle = resolve('.build/burst-scale/scan.cjs')
  await build({
    entryPoints: ['functions/scan.ts'],
    outfile: bundle,
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node24',
    packages: 'external',
    loader: { '.lua': 'text' },
    logLevel: 'warning',
  })
  const env = await startBenchEnv()
  const target = CLUSTER ? await cluster(env) : singleRedis(env)
  try {
    console.log(`${target.label}, workers at ${MB} MB`)
    for (let round = 0; round < ROUNDS; round++) {
      let one = 0
      for (const k of WORKERS) {
        const r = await drainWith(env, target, bundle, k, round)
        if (k === 1) one = r.jobsPerSec
        const efficiency = one ? r.jobsPerSec / (k * one) : Number.NaN
        console.log(
          `${JOBS} jobs, ${k} worker(s) at ${MB} MB: ${Math.round(r.jobsPerSec)} jobs/s, efficiency ` +
            `${(efficiency * 100).toFixed(0)}%, last in SQS ${(r.lastInSqsMs / 1000).toFixed(2)} s, redis ` +
            `${r.redisUsPerJob.toFixed(1)} µs/job, workers ${r.workerUsPerJob.toFixed(1)} µs/job, sent ${r.sent} ` +
            `(duplicates ${r.duplicates}), in queue ${r.inQueue}, all drained: ${r.drained}`,
        )
      }
    }
  } finally {
    await target.stop()
    await env.stop()
  }
}

runMain(main)
