// What the functions' memory sizes are chosen from (docs/cost.md "Right-sizing"): CPU time, measured in this process
// with process.cpuUsage() (user + system), for
//   - the scanner draining N due jobs into SQS (claims, message building, SendMessageBatch, acks): CPU ms per 1,000;
//   - the scanner idle (jobs exist, none due within the hour): CPU ms per second of wall time;
//   - the scanner in a steady stream (jobs falling due one by one, evenly spaced, at a few rates): CPU ms per job.
//     Each job is then its own claim, send and ack, and the process sleeps between jobs: waking costs CPU of its
//     own (on this Firecracker VM, as on Lambda's), so a job costs far more here than in a burst, where one claim
//     fills a batch and nothing sleeps. The burst figure gives a size's capacity, this one what a stream uses;
//   - the API handler: one POST /jobs, and one POST /jobs/batch of 100, as API Gateway / a Function URL hands them over.
// Redis and the local SQS endpoint run in their own processes, so their CPU is not counted. On Lambda a function gets
// CPU in proportion to its memory (1,769 MB = one vCPU), so CPU ms per job / the vCPU share = wall ms per job.
import { sleep } from '../devkit/sleep'
import type { APIGatewayProxyEventV2, Context } from 'aws-lambda'
import { build } from 'esbuild'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { type Arrivals, benchJob, dueOffsets, jobId, PAYLOAD_JSON, TARGET } from './data'
import { flush, type BenchEnv } from './env'
import { scanParts, startScanning } from './scanning'
import { inFlight, median, percentiles } from '../devkit/stats'

export interface CpuResult {
  drainJobs: number
  scanCpuMsPer1000Jobs: number
  /** Wall-clock drain rate in this run (one core of this machine, shared). */
  drainPerSec: number
  idleSeconds: number
  scanIdleCpuMsPerSec: number
  /** CPU ms per job in a steady stream, by rate (jobs/s), idle CPU included: what a size must have to spare. */
  steady: SteadyRow[]
  /**
   * Streams at the same rates with a dispatch window of WINDOW_ROWS_MS, their jobs due at random (Poisson): fewer,
   * fuller requests, and jobs up to W late. Evenly spaced jobs would batch in a pattern no real stream has (at
   * 10/s and 1 s, 11 jobs a window: a request of 10 and one of 1, every time).
   */
  windowed: SteadyRow[]
  /**
   * What holding acks for the next claim (src/scan/claims/ack-hold.ts) saves: CPU per job at 40 jobs/s with the hold over
   * without it, in pairs run back to back (each pair in either order), and their median.
   */
  ackHold: { ratios: number[]; median: number }
  apiRequests: number
  apiCpuMsPerRequest: number
  apiWallMsPerRequest: number
  apiCpuMsPerBatch100: number
  apiWallMsPerBatch100: number
}

/** Jobs a second in the steady-stream rows: 100M jobs a month is 38 a second. */
export const STEADY_RATES = [10, 40, 160]
/** DISPATCH_WINDOW_MS of the windowed rows. */
export const WINDOW_ROWS_MS = 1_000

const cpuMs = () => {
  const u = process.cpuUsage()
  return (u.user + u.system) / 1000
}

async function scanDrain(env: BenchEnv, jobs: number, rep: number) {
  const { queue, engine, sqs } = await scanParts(env, 'cpu')
  const all = Array.from({ length: jobs }, (_, i) => benchJob(jobId(`c${rep}`, i), { delayMs: 0 }))
  await inFlight(
    Math.ceil(jobs / 100),
    8,
    async (b) => void (await engine.store.enqueueMany(all.slice(b * 100, b * 100 + 100))),
  )
  let sent = 0
  const startCpu = cpuMs()
  const started = performance.now()
  const scan = startScanning({ engine, sqs, queue }, Date.now() + 120_000, { onSent: () => void sent++ })
  while (sent < jobs && performance.now() - started < 120_000) await sleep(5)
  const wallMs = performance.now() - started
  const usedMs = cpuMs() - startCpu
  await scan.stop()
  if (sent < jobs) throw new Error(`cpu bench: only ${sent} of ${jobs} jobs sent`)
  return { cpuPer1000: (usedMs / jobs) * 1000, perSec: jobs / (wallMs / 1000) }
}

async function scanIdle(env: BenchEnv, seconds: number) {
  const { queue, engine, sqs } = await scanParts(env, 'cpu-idle')
  await engine.store.enqueueMany(
    Array.from({ length: 1_000 }, (_, i) => benchJob(jobId('ci', i), { delayMs: 3_600_000 + i })),
  )
  const scan = startScanning({ engine, sqs, queue }, Date.now() + seconds * 1000 + 60_000)
  await sleep(1_000) // past the first claim and the subscription
  const startCpu = cpuMs()
  const started = performance.now()
  await sleep(seconds * 1000)
  const perSec = (cpuMs() - startCpu) / ((performance.now() - started) / 1000)
  await scan.stop()
  return perSec
}

/** A steady-stream row: CPU per job, and what SQS was asked for and how late the jobs left. */
export interface SteadyRow {
  jobsPerSec: number
  seconds: number
  /** DISPATCH_WINDOW_MS of the run (0: each job sent when due). */
  windowMs: number
  arrivals: Arrivals
  cpuMsPerJob: number
  /** Jobs per SendMessageBatch request (the warm-up, which carries none, not counted). */
  jobsPerRequest: number
  latenessP50Ms: number
  latenessP99Ms: number
}

/**
 * Jobs due at `rate` a second for `seconds` (evenly spaced unless told), enqueued beforehand; CPU from the first due
 * time. With a dispatch window W and evenly spaced jobs each claim takes floor(rate × W) + 1 of them, with random
 * ones 1 + rate × W on average: ten at most either way (the scan claims as soon as ten are due).
 */
export async function scanSteady(
  env: BenchEnv,
  rate: number,
  seconds: number,
  o: { ackHoldMs?: number; windowMs?: number; arrivals?: Arrivals } = {},
): Promise<SteadyRow> {
  const windowMs = o.windowMs ?? 0
  const arrivals = o.arrivals ?? 'even'
  const parts = await scanParts(env, 'cpu-steady', { dispatchWindowMs: windowMs })
  let requests = 0
  parts.sqs.middlewareStack.add((next) => async (args) => {
    if (((args.input as { Entries?: unknown[] }).Entries ?? []).length > 0) requests++
    return next(args)
  })
  const lateness: number[] = []
  const jobs = Math.round(rate * seconds)
  const firstDue = Date.now() + 2_000
  const all = dueOffsets(jobs, rate, arrivals).map((offset, i) =>
    benchJob(jobId(`st${rate}`, i), { atMs: firstDue + offset }),
  )
  for (let b = 0; b < jobs; b += 100) await parts.engine.store.enqueueMany(all.slice(b, b + 100))
  let sent = 0
  let allSent!: () => void
  const done = new Promise<void>((resolve) => (allSent = resolve))
  const scan = startScanning(parts, firstDue + seconds * 1000 + 30_000, {
    onSent: (_job, _at, lateMs) => {
      lateness.push(lateMs)
      if (++sent === jobs) allSent()
    },
    ...(o.ackHoldMs === undefined ? {} : { ackHoldMs: o.ackHoldMs }),
  })
  await sleep(firstDue - Date.now())
  const startCpu = cpuMs()
  const timeout = sleep(seconds * 1000 + 20_000).then(() => 'timeout' as const)
  const outcome = await Promise.race([done, timeout])
  const usedMs = cpuMs() - startCpu
  await scan.stop()
  if (outcome === 'timeout') throw new Error(`cpu bench: steady ${rate}/s sent only ${sent} of ${jobs} jobs`)
  const late = percentiles(lateness)
  return {
    jobsPerSec: rate,
    seconds,
    windowMs,
    arrivals,
    cpuMsPerJob: usedMs / jobs,
    jobsPerRequest: jobs / requests,
    latenessP50Ms: late.p50,
    latenessP99Ms: late.p99,
  }
}

function apiEvent(method: string, path: string, body: string): APIGatewayProxyEventV2 {
  return {
    version: '2.0',
    routeKey: `${method} ${path}`,
    rawPath: path,
    rawQueryString: '',
    headers: { 'content-type': 'application/json' },
    requestContext: { http: { method, path } } as APIGatewayProxyEventV2['requestContext'],
    body,
    isBase64Encoded: false,
  }
}

type Handler = (event: APIGatewayProxyEventV2, context: Context) => Promise<unknown>

/**
 * functions/api.ts bundled as serverless-esbuild bundles it (middy is ESM-only: the bench's own loader cannot
 * require it) and loaded with the bench's Redis in its environment: the handler Lambda runs.
 */
async function loadApiHandler(env: BenchEnv): Promise<{ handler: Handler; cleanup(): void }> {
  const dir = mkdtempSync(join(tmpdir(), 'sdq-bench-api-'))
  const outfile = join(dir, 'api.js')
  await build({
    entryPoints: ['functions/api.ts'],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node24',
    external: ['@aws-sdk/*', '@smithy/*'],
    loader: { '.lua': 'text' },
    logLevel: 'warning',
  })
  Object.assign(process.env, { REDIS_URL: env.redis.url, QUEUES: `${TARGET}=http://127.0.0.1:1/000000000000/unused` })
  const { handler } = require(outfile) as { handler: Handler }
  return { handler, cleanup: () => rmSync(dir, { recursive: true, force: true }) }
}

async function api(env: BenchEnv, requests: number) {
  await flush(env.admin)
  const { handler, cleanup } = await loadApiHandler(env)
  const context = { getRemainingTimeInMillis: () => 10_000 } as Context
  const one = (i: number) => `{"queue":"${TARGET}","id":"${jobId('a', i)}","delayMs":3600000,"payload":${PAYLOAD_JSON}}`
  const measure = async (event: (i: number) => APIGatewayProxyEventV2, n: number) => {
    const cpu: number[] = []
    const wall: number[] = []
    for (let i = 0; i < n; i++) {
      const e = event(i)
      const [c, w] = [cpuMs(), performance.now()]
      const res = (await handler(e, context)) as { statusCode: number }
      if (res.statusCode >= 300) throw new Error(`api bench: ${res.statusCode}`)
      cpu.push(cpuMs() - c)
      wall.push(performance.now() - w)
    }
    return { cpu: median(cpu), wall: median(wall) }
  }
  const single = await measure((i) => apiEvent('POST', '/jobs', one(i)), requests)
  const batches = Math.max(10, Math.floor(requests / 20))
  const batch = await measure(
    (b) =>
      apiEvent(
        'POST',
        '/jobs/batch',
        `{"jobs":[${Array.from({ length: 100 }, (_, k) => one(1_000_000 + b * 100 + k)).join(',')}]}`,
      ),
    batches,
  )
  cleanup()
  return { single, batch }
}

export async function measureCpu(
  env: BenchEnv,
  size: { drainJobs: number; idleSeconds: number; apiRequests: number; reps: number; steadySeconds: number },
): Promise<CpuResult> {
  const drains = []
  for (let rep = 0; rep < size.reps; rep++) drains.push(await scanDrain(env, size.drainJobs, rep))
  const idle = await scanIdle(env, size.idleSeconds)
  const steady = []
  for (const rate of STEADY_RATES) steady.push(await scanSteady(env, rate, size.steadySeconds))
  const windowed = []
  for (const rate of STEADY_RATES) {
    windowed.push(await scanSteady(env, rate, size.steadySeconds, { windowMs: WINDOW_ROWS_MS, arrivals: 'poisson' }))
  }
  const ratios = []
  for (let pair = 0; pair < size.reps + 1; pair++) {
    const order = pair % 2 ? [0, undefined] : [undefined, 0]
    const [first, second] = [
      await scanSteady(env, 40, size.steadySeconds / 2, { ackHoldMs: order[0] }),
      await scanSteady(env, 40, size.steadySeconds / 2, { ackHoldMs: order[1] }),
    ]
    const [held, notHeld] = order[0] === undefined ? [first, second] : [second, first]
    ratios.push(held.cpuMsPerJob / notHeld.cpuMsPerJob)
  }
  const { single, batch } = await api(env, size.apiRequests)
  return {
    drainJobs: size.drainJobs,
    scanCpuMsPer1000Jobs: median(drains.map((d) => d.cpuPer1000)),
    drainPerSec: median(drains.map((d) => d.perSec)),
    idleSeconds: size.idleSeconds,
    scanIdleCpuMsPerSec: idle,
    steady,
    windowed,
    ackHold: { ratios, median: median(ratios) },
    apiRequests: size.apiRequests,
    apiCpuMsPerRequest: single.cpu,
    apiWallMsPerRequest: single.wall,
    apiCpuMsPerBatch100: batch.cpu,
    apiWallMsPerBatch100: batch.wall,
  }
}
