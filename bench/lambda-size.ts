// `npm run bench:lambda-size [-- --sizes 128,256 --rate 38 --seconds 30 --burst 10000 --period-ms 100 --window-ms 0
//   --arrivals even|poisson]`:
// the packaged scan function
// run at Lambda sizes, to choose its memory (docs/cost.md "Right-sizing"). Each size gets a cgroup with Lambda's CPU
// share and memory limit for it (bench/cgroup.ts; the quota period is a flag: Lambda's is not published) and the V8
// flags Lambda's Node.js runtime sets for it; inside,
// a fresh Node process loads the scan bundle and runs one invocation, as Lambda would:
//   - steady: jobs falling due one by one at `rate` a second (38/s is 100M a month) for `seconds`, continuous mode;
//     the scan's own lateness figures (SQS accepted - due, Redis's clock), the CPU it used (cpuacct) as a part of
//     its share, and how often the quota throttled it, both counted from the first due job on;
//   - burst: `burst` jobs due at once, on-demand mode (the invocation ends when they are out): how long the drain
//     took, and the group's peak memory (what Lambda reports as Max Memory Used), or the OOM kill.
// `--window-ms W` runs the stream with DISPATCH_WINDOW_MS=W, its jobs due at random (Poisson, a fixed seed);
// `--burst 0` leaves the burst out. `--arrivals poisson` makes an unwindowed stream's jobs fall due at random too.
// Needs root and cgroup v1 (it says so and stops otherwise). Writes `lambdaSize.byPeriod[<ms>]` in bench/results.json
// (the cost model reads the 100 ms runs), `lambdaSize.windowed[<W>]` with a window, or `lambdaSize.byRate[<rate>]`
// for a stream at another rate than 38 a second (the small deployments the 128 MB floor is for).
import { spawn } from 'node:child_process'
import { readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { vcpuShare } from '../src/scan/cpu-share'
import { createEngine } from '../src/store/engine'
import { LambdaCgroup, type CgroupFigures } from './cgroup'
import { type Arrivals, benchJob, dueOffsets, jobId } from './data'
import { flush, startBenchEnv, type BenchEnv } from './env'
import { runMain } from './main'
import { bundlesIn, packageHere } from './packaged'
import { inFlight } from './stats'

const arg = (name: string, fallback: string) => {
  const i = process.argv.indexOf(`--${name}`)
  return i > 0 ? process.argv[i + 1]! : fallback
}
const SIZES_MB = arg('sizes', '128,256,384,512,768,1024').split(',').map(Number)
const RATE = Number(arg('rate', '38'))
const SECONDS = Number(arg('seconds', '30'))
const BURST = Number(arg('burst', '10000'))
const PERIOD_MS = Number(arg('period-ms', '100'))
const WINDOW_MS = Number(arg('window-ms', '0'))
/** A windowed stream's jobs fall due at random (bench/cpu.ts says why); an unwindowed one's evenly, as before. */
const ARRIVALS = arg('arrivals', WINDOW_MS ? 'poisson' : 'even') as Arrivals
/** Time for the child's module load before the first job falls due (at 128 MB it gets 7% of a CPU). */
const LEAD_MS = 8_000

/** Runs in the child: load the handler, invoke it once until DEADLINE, write its report to RESULT_FILE. */
const CHILD = `
const t = performance.now()
const { handler } = require(process.env.BUNDLE)
const loadMs = performance.now() - t
const deadline = Number(process.env.DEADLINE)
handler({ source: 'aws.events', 'detail-type': 'Scheduled Event' }, {
  awsRequestId: 'bench', functionName: 'scan', getRemainingTimeInMillis: () => deadline - Date.now(),
}).then((report) => {
  require('fs').writeFileSync(process.env.RESULT_FILE, JSON.stringify({ loadMs, ...report }))
  process.exit(0)
}, (e) => { console.error(e); process.exit(1) })
`

interface Invocation {
  report?: {
    loadMs: number
    dispatched: number
    durationMs: number
    lateness: { p50: number; p99: number; max: number } | null
  }
  /** The signal that ended the child, when one did (SIGKILL: the OOM killer). */
  signal: string | null
  cgroup: CgroupFigures
  /** The group's figures at `markAt` (the first due job), and when that was. */
  atMark?: CgroupFigures
  markedAt?: number
  endedAt: number
}

async function invoke(
  env: BenchEnv,
  bundle: string,
  mb: number,
  vars: Record<string, string>,
  markAt?: number,
): Promise<Invocation> {
  const resultFile = join(tmpdir(), `sdq-lambda-size-${process.pid}.json`)
  rmSync(resultFile, { force: true })
  let group: LambdaCgroup | undefined
  try {
    group = new LambdaCgroup(`sdq-bench-${process.pid}-${mb}`, mb, PERIOD_MS)
    // Lambda's Node.js runtime: a tenth of the memory for the young generation, the rest for the old one.
    const v8 = [`--max-semi-space-size=${Math.floor(mb / 20)}`, `--max-old-space-size=${mb - Math.floor(mb / 10)}`]
    const { command, args } = group.wrap(process.execPath, [...v8, '-e', CHILD])
    const child = spawn(command, args, {
      stdio: ['ignore', 'ignore', 'inherit'],
      env: {
        ...process.env,
        ...vars,
        BUNDLE: bundle,
        RESULT_FILE: resultFile,
        NODE_PATH: resolve(process.cwd(), 'node_modules'),
        REDIS_URL: env.redis.url,
        SQS_ENDPOINT: env.sqs.endpoint,
        AWS_REGION: 'us-east-1',
        AWS_LAMBDA_FUNCTION_MEMORY_SIZE: String(mb),
        POWERTOOLS_LOG_LEVEL: 'ERROR',
        SAFETY_MARGIN_MS: '1000',
      },
    })
    let atMark: CgroupFigures | undefined
    let markedAt: number | undefined
    const g = group
    const marker = markAt
      ? setTimeout(() => {
          markedAt = Date.now()
          atMark = g.figures()
        }, markAt - Date.now())
      : undefined
    const killer = setTimeout(() => child.kill('SIGKILL'), Number(vars.DEADLINE) - Date.now() + 30_000)
    const { code, signal } = await new Promise<{ code: number | null; signal: string | null }>((done, fail) => {
      child.once('error', fail)
      child.once('exit', (c, sig) => done({ code: c, signal: sig }))
    })
    const endedAt = Date.now()
    clearTimeout(killer)
    clearTimeout(marker)
    if (!signal && code !== 0)
      throw new Error(`the scan function exited with ${code} at ${mb} MB (its stderr is above)`)
    const report = signal ? undefined : JSON.parse(readFileSync(resultFile, 'utf8'))
    return { report, signal, cgroup: group.figures(), atMark, markedAt, endedAt }
  } finally {
    rmSync(resultFile, { force: true })
    group?.remove()
  }
}

async function enqueue(env: BenchEnv, queueUrl: string, jobs: ReturnType<typeof benchJob>[]) {
  const engine = createEngine(env.config(queueUrl))
  await inFlight(Math.ceil(jobs.length / 100), 8, async (b) => {
    for (const r of await engine.store.enqueueMany(jobs.slice(b * 100, b * 100 + 100))) if (r instanceof Error) throw r
  })
  await engine.close()
}

async function steady(env: BenchEnv, bundle: string, mb: number) {
  await flush(env.admin)
  const queue = await env.queue('lambda-steady')
  try {
    const firstDue = Date.now() + LEAD_MS
    const count = Math.round(RATE * SECONDS)
    const offsets = dueOffsets(count, RATE, ARRIVALS)
    await enqueue(
      env,
      queue.url,
      offsets.map((offset, i) => benchJob(jobId(`ls${mb}`, i), { atMs: firstDue + offset })),
    )
    // Random arrivals may run past SECONDS (at 4 a second over 60 s, by ~4 s one time in three): wait for the last.
    const deadline = firstDue + Math.max(SECONDS * 1000, offsets.at(-1)!) + WINDOW_MS + 3_000
    const r = await invoke(
      env,
      bundle,
      mb,
      {
        QUEUES: `bench=${queue.url}`,
        SCAN_MODE: 'continuous',
        DISPATCH_WINDOW_MS: String(WINDOW_MS),
        DEADLINE: String(deadline),
      },
      firstDue,
    )
    if (r.report && r.report.dispatched !== count) throw new Error(`steady: ${r.report.dispatched} of ${count} sent`)
    return { count, ...r }
  } finally {
    await queue.remove()
  }
}

async function burst(env: BenchEnv, bundle: string, mb: number): Promise<Invocation | null> {
  if (BURST === 0) return null
  await flush(env.admin)
  const queue = await env.queue('lambda-burst')
  try {
    await enqueue(
      env,
      queue.url,
      Array.from({ length: BURST }, (_, i) => benchJob(jobId(`lb${mb}`, i), { delayMs: 0 })),
    )
    const r = await invoke(env, bundle, mb, {
      QUEUES: `bench=${queue.url}`,
      SCAN_MODE: 'on-demand',
      ON_DEMAND_LINGER_MS: '200',
      DEADLINE: String(Date.now() + 240_000),
    })
    if (r.report && r.report.dispatched !== BURST) throw new Error(`burst: ${r.report.dispatched} of ${BURST} sent`)
    return r
  } finally {
    await queue.remove()
  }
}

/** The stream's part of the run, from the first due job to the end: CPU as a part of the share, and throttling. */
function streamFigures(r: Invocation, mb: number) {
  if (!r.atMark || !r.markedAt) return null
  const windowMs = r.endedAt - r.markedAt
  return {
    cpuShareUsed: (r.cgroup.cpuMs - r.atMark.cpuMs) / (windowMs * vcpuShare(mb)),
    periods: r.cgroup.periods - r.atMark.periods,
    throttledPeriods: r.cgroup.throttledPeriods - r.atMark.throttledPeriods,
  }
}

async function main() {
  if (!LambdaCgroup.available()) throw new Error('bench:lambda-size needs root and cgroup v1 at /sys/fs/cgroup')
  const env = await startBenchEnv()
  const rows = []
  let packaged: string | undefined
  try {
    packaged = packageHere()
    const bundle = bundlesIn(packaged).get('scan')
    if (!bundle) throw new Error('no scan bundle in the package')
    console.log(
      `steady ${RATE} jobs/s for ${SECONDS} s, continuous mode, dispatch window ${WINDOW_MS} ms; burst of ${BURST}, on-demand mode; quota period ${PERIOD_MS} ms`,
    )
    console.log(
      'MB | load ms | steady p50 / p99 / max ms | share used | periods throttled | steady peak MB | burst drain s | burst peak MB',
    )
    for (const mb of SIZES_MB) {
      const s = await steady(env, bundle, mb)
      const b = await burst(env, bundle, mb)
      const stream = streamFigures(s, mb)
      const row = {
        memoryMb: mb,
        loadMs: s.report?.loadMs ?? null,
        steady: { jobsPerSec: RATE, seconds: SECONDS, lateness: s.report?.lateness ?? null, killed: s.signal },
        stream,
        steadyPeakMb: s.cgroup.peakMemoryMb,
        burst: { jobs: BURST, drainS: b?.report ? b.report.durationMs / 1000 : null, killed: b?.signal ?? null },
        burstPeakMb: b?.cgroup.peakMemoryMb ?? null,
        burstLimitHits: b?.cgroup.limitHits ?? 0,
      }
      rows.push(row)
      const l = row.steady.lateness
      console.log(
        `${mb} | ${row.loadMs?.toFixed(0) ?? '-'} | ${l ? `${l.p50} / ${l.p99} / ${l.max}` : `killed (${s.signal})`} | ` +
          `${stream ? `${(stream.cpuShareUsed * 100).toFixed(0)}%` : '-'} | ` +
          `${stream ? `${stream.throttledPeriods} of ${stream.periods}` : '-'} | ${row.steadyPeakMb.toFixed(0)} | ` +
          `${b ? (row.burst.drainS?.toFixed(1) ?? `killed (${b.signal})`) : '-'} | ${row.burstPeakMb?.toFixed(0) ?? '-'}${row.burstLimitHits ? ` (limit hit ${row.burstLimitHits}x)` : ''}`,
      )
    }
  } finally {
    if (packaged) rmSync(packaged, { recursive: true, force: true })
    await env.stop()
  }
  const file = resolve(process.cwd(), 'bench/results.json')
  const all = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>
  const previous = (all.lambdaSize ?? {}) as Record<'byPeriod' | 'windowed' | 'byRate', Record<string, unknown>>
  const run = {
    date: new Date().toISOString(),
    rate: RATE,
    seconds: SECONDS,
    burst: BURST,
    periodMs: PERIOD_MS,
    arrivals: ARRIVALS,
    rows,
  }
  const [section, key] = WINDOW_MS
    ? (['windowed', String(WINDOW_MS)] as const)
    : RATE !== 38
      ? (['byRate', String(RATE)] as const)
      : (['byPeriod', String(PERIOD_MS)] as const)
  const lambdaSize = { ...previous, [section]: { ...previous[section], [key]: run } }
  writeFileSync(file, `${JSON.stringify({ ...all, lambdaSize }, null, 2)}\n`)
}

runMain(main)
