// `npm run bench:burst-scale [-- --jobs 200000 --workers 1,2,4 --mb 442 --rounds 1 --cluster --ab <git ref>
// --cpu-prof --set NAME=VALUE]`:
// a backlog due at once drained by k scan workers side by side, each a fresh Node process running the scan function's
// handler with a worker's event (src/scan/run/fan-out.ts, src/scan/run/worker.ts) in a cgroup of its own with
// Lambda's CPU share for `mb`, and Lambda's Node memory flags for it (bench/scan-worker-process.ts; 442 MB = 0.25 of a CPU, so
// that 4 workers take one of the machine's two cores). Per k: jobs/s (jobs / time from the workers' start to the last
// one's end: each ends 500 ms after its last work, taken off), scaling efficiency (rate with k ÷ (k × rate with one)),
// redis-server's and the SQS endpoint's (fauxqs) CPU µs per job, the workers' CPU µs per job (all of it; and from
// their start instant on: draining alone), the share of scheduler periods in which they were throttled (they wanted
// more CPU than their share), the tail (the last worker's end less the first one's), duplicates (jobs sent more
// than once, from the workers' reports and the queue's count) and the last-in-SQS time. On one redis-server, and with `--cluster` on a local 3-master Redis
// Cluster (SHARDS=12; Redis CPU summed over the masters). `--ab <ref>` also bundles the scan function from that git
// revision and alternates the two in every round (this tree first in even rounds), then prints each one's medians and
// their ratio: per-worker figures before and after a change, on the same machine minutes. `--cpu-prof` writes a V8
// CPU profile of every worker to .build/burst-scale/profiles; `--set NAME=VALUE` gives every worker a setting. Needs
// root and cgroup v1. Prints the load average.
import { GetQueueAttributesCommand, SQSClient } from '@aws-sdk/client-sqs'
import { execSync } from 'node:child_process'
import { mkdirSync, rmSync } from 'node:fs'
import { loadavg } from 'node:os'
import { resolve } from 'node:path'
import { type Config, loadConfig } from '../src/config'
import { createEngine } from '../src/store/engine'
import { startRedisCluster } from '../local/redis-cluster'
import { WORKER_IDLE_MS } from '../src/scan/run/worker'
import { LambdaCgroup } from './cgroup'
import { benchJob, jobId } from './data'
import { flush, processCpuSeconds, startBenchEnv, type BenchEnv } from './env'
import { runMain } from './main'
import { bundleScanFunction, runScanWorker } from './scan-worker-process'
import { inFlight, median } from '../devkit/stats'

const arg = (name: string, fallback: string) => {
  const i = process.argv.indexOf(`--${name}`)
  return i > 0 ? process.argv[i + 1]! : fallback
}
const JOBS = Number(arg('jobs', '200000'))
const WORKERS = arg('workers', '1,2,4').split(',').map(Number)
const MB = Number(arg('mb', '442'))
const ROUNDS = Number(arg('rounds', '1'))
const CLUSTER = process.argv.includes('--cluster')
const AB = arg('ab', '')
const CPU_PROF = process.argv.includes('--cpu-prof')
/** `--set NAME=VALUE` (repeatable): a setting for every worker, e.g. DISPATCH_RECEIPT_TTL_MS=0. */
const SETTINGS = Object.fromEntries(
  process.argv.flatMap((a, i) =>
    a === '--set' && process.argv[i + 1]?.includes('=') ? [process.argv[i + 1]!.split(/=(.*)/s).slice(0, 2)] : [],
  ),
)

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
    const sqsCpu0 = processCpuSeconds(env.sqs.process.pid!)
    const results = await Promise.all(
      Array.from({ length: k }, (_, w) =>
        runScanWorker({
          bundle,
          mb: MB,
          worker: w + 1,
          startAt,
          deadline: startAt + 600_000,
          ...(CPU_PROF ? { cpuProfDir: resolve('.build/burst-scale/profiles') } : {}),
          env: {
            ...target.vars,
            SQS_ENDPOINT: env.sqs.endpoint,
            QUEUES: `bench=${queue.url}`,
            AWS_REGION: 'us-east-1',
            POWERTOOLS_LOG_LEVEL: 'ERROR',
            POWERTOOLS_METRICS_DISABLED: 'true',
            SAFETY_MARGIN_MS: '1000',
            ...SETTINGS,
          },
        }),
      ),
    )
    const redisCpuS = target.cpuSeconds() - redisCpu0
    // A worker that ends well after the others: say what it did (sends refused and retried, Redis errors, its CPU).
    const firstEnd = Math.min(...results.map((r) => r.endedAt))
    for (const [w, r] of results.entries()) {
      if (r.endedAt - firstEnd > 2_000) {
        const { dispatched, released, claims, sqsRequests, errors, drainCpuMs, throttledPeriods, periods } =
          r as unknown as Record<string, number>
        console.log(
          `  worker ${w + 1} ended ${r.endedAt - firstEnd} ms after the first: ${JSON.stringify({ dispatched, released, claims, sqsRequests, errors, drainCpuMs, throttledPeriods, periods })}`,
        )
      }
    }
    const sqsCpuS = processCpuSeconds(env.sqs.process.pid!) - sqsCpu0
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
      /** The SQS endpoint's (fauxqs) CPU per message: what it needs at this rate, on the same two cores. */
      sqsUsPerJob: (sqsCpuS * 1e6) / JOBS,
      workerUsPerJob: (results.reduce((n, r) => n + r.cpuMs, 0) * 1000) / sent,
      drainUsPerJob: (results.reduce((n, r) => n + r.drainCpuMs, 0) * 1000) / sent,
      throttled: results.reduce((n, r) => n + r.throttledPeriods, 0) / results.reduce((n, r) => n + r.periods, 0),
      /** Each worker's end less the first one's: how long the last ones ran after another had run out of work. */
      /** Of the workers' drain: the share of their wanting-to-run time spent waiting for a core (quota or machine). */
      waitShare: results.reduce((n, r) => n + r.waitMs, 0) / results.reduce((n, r) => n + r.waitMs + r.drainCpuMs, 0),
      tailMs: Math.max(...results.map((r) => r.endedAt)) - Math.min(...results.map((r) => r.endedAt)),
      loadAverage: loadavg()[0]!,
      drained: results.every((r) => r.drained),
    }
  } finally {
    await queue.remove()
  }
}

/** This tree's scan function, and with `--ab` the one of that revision (its source from git archive). */
async function bundles(): Promise<{ label: string; file: string }[]> {
  const out = [
    { label: 'this tree', file: await bundleScanFunction(process.cwd(), resolve('.build/burst-scale/scan.cjs')) },
  ]
  if (AB) {
    const root = resolve('.build/burst-scale/ab-source')
    rmSync(root, { recursive: true, force: true })
    mkdirSync(root, { recursive: true })
    execSync(`git archive ${JSON.stringify(AB)} | tar -x -C ${JSON.stringify(root)}`)
    out.push({ label: AB, file: await bundleScanFunction(root, resolve('.build/burst-scale/scan-ab.cjs')) })
  }
  return out
}

type Drain = Awaited<ReturnType<typeof drainWith>>

function line(label: string, k: number, r: Drain, efficiency: number): string {
  return (
    `${label}: ${JOBS} jobs, ${k} worker(s) at ${MB} MB: ${Math.round(r.jobsPerSec)} jobs/s, efficiency ` +
    `${(efficiency * 100).toFixed(0)}%, last in SQS ${(r.lastInSqsMs / 1000).toFixed(2)} s, tail ${r.tailMs} ms, redis ` +
    `${r.redisUsPerJob.toFixed(1)} µs/job, fauxqs ${r.sqsUsPerJob.toFixed(1)} µs/job, workers ${r.workerUsPerJob.toFixed(1)} µs/job (draining ` +
    `${r.drainUsPerJob.toFixed(1)}), throttled ${(r.throttled * 100).toFixed(0)}% of periods, waited for a core ${(r.waitShare * 100).toFixed(0)}% of the time they wanted one, sent ${r.sent} ` +
    `(duplicates ${r.duplicates}), in queue ${r.inQueue}, all drained: ${r.drained}, load ${r.loadAverage.toFixed(1)}`
  )
}

async function main() {
  if (!LambdaCgroup.available()) throw new Error('bench:burst-scale needs root and cgroup v1 (bench/cgroup.ts)')
  const builds = await bundles()
  const env = await startBenchEnv()
  const target = CLUSTER ? await cluster(env) : singleRedis(env)
  const runs = new Map<string, Drain[]>()
  try {
    console.log(`${target.label}, workers at ${MB} MB`)
    for (let round = 0; round < ROUNDS; round++) {
      const order = round % 2 ? [...builds].reverse() : builds
      for (const b of order) {
        let one = 0
        for (const k of WORKERS) {
          const r = await drainWith(env, target, b.file, k, round)
          if (k === 1) one = r.jobsPerSec
          const key = `${b.label}|${k}`
          runs.set(key, [...(runs.get(key) ?? []), r])
          console.log(line(b.label, k, r, one ? r.jobsPerSec / (k * one) : Number.NaN))
        }
      }
    }
    if (ROUNDS > 1 || builds.length > 1)
      summary(
        builds.map((b) => b.label),
        runs,
      )
  } finally {
    await target.stop()
    await env.stop()
  }
}

/**
 * Medians per build and k: jobs/s, and the efficiency of the medians (median rate with k ÷ (k × median rate with one):
 * rounds run minutes apart on a shared machine, so one round's single worker may have had a quieter or a busier
 * minute than its k workers), and the CPU efficiency (draining µs per job with one ÷ with k: what the workers' own
 * work adds as they multiply, whatever share of the machine they got). With --ab, the ratio of this tree's to the
 * other's.
 */
function summary(labels: string[], runs: Map<string, Drain[]>): void {
  const med = (label: string, k: number, f: (r: Drain) => number) => median((runs.get(`${label}|${k}`) ?? []).map(f))
  for (const k of WORKERS) {
    for (const label of labels) {
      const rate = med(label, k, (r) => r.jobsPerSec)
      const one = med(label, 1, (r) => r.jobsPerSec)
      const drainUs = med(label, k, (r) => r.drainUsPerJob)
      const efficiency = WORKERS.includes(1)
        ? ` (efficiency ${((rate / (k * one)) * 100).toFixed(0)}%, CPU efficiency ${((med(label, 1, (r) => r.drainUsPerJob) / drainUs) * 100).toFixed(0)}%)`
        : ''
      console.log(
        `median ${label}, ${k} worker(s): ${Math.round(rate)} jobs/s${efficiency}, last in SQS ` +
          `${(med(label, k, (r) => r.lastInSqsMs) / 1000).toFixed(2)} s, tail ${Math.round(med(label, k, (r) => r.tailMs))} ms, ` +
          `workers ${med(label, k, (r) => r.workerUsPerJob).toFixed(1)} µs/job (draining ${drainUs.toFixed(1)}), ` +
          `redis ${med(label, k, (r) => r.redisUsPerJob).toFixed(1)} µs/job, fauxqs ${med(label, k, (r) => r.sqsUsPerJob).toFixed(1)} µs/job, throttled ` +
          `${(med(label, k, (r) => r.throttled) * 100).toFixed(0)}%, waited for a core ${(med(label, k, (r) => r.waitShare) * 100).toFixed(0)}%, duplicates ${med(label, k, (r) => r.duplicates)}, ` +
          `load ${med(label, k, (r) => r.loadAverage).toFixed(1)}`,
      )
    }
    if (labels.length === 2) {
      const [a, b] = labels as [string, string]
      console.log(
        `ratio ${a} / ${b}, ${k} worker(s): jobs/s ${(med(a, k, (r) => r.jobsPerSec) / med(b, k, (r) => r.jobsPerSec)).toFixed(2)}x, ` +
          `jobs per CPU-second ${(med(b, k, (r) => r.workerUsPerJob) / med(a, k, (r) => r.workerUsPerJob)).toFixed(2)}x ` +
          `(draining ${(med(b, k, (r) => r.drainUsPerJob) / med(a, k, (r) => r.drainUsPerJob)).toFixed(2)}x)`,
      )
    }
  }
}

runMain(main)
