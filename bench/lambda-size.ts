// `npm run bench:lambda-size [-- --sizes 128,256 --rate 38 --seconds 30 --burst 10000 --period-ms 100 --window-ms 0
//   --arrivals even|poisson --warm-rounds 3]`:
// the packaged scan function
// run at Lambda sizes, to choose its memory (docs/cost.md "Right-sizing"). Each size gets a cgroup with Lambda's CPU
// share and memory limit for it (bench/cgroup.ts; the quota period is a flag: Lambda's is not published) and the V8
// flags Lambda's Node.js runtime sets for it; inside,
// a fresh Node process loads the scan bundle and runs one invocation, as Lambda would (bench/lambda-invoke.ts):
//   - steady: jobs falling due one by one at `rate` a second (38/s is 100M a month) for `seconds`, continuous mode;
//     the scan's own lateness figures (SQS accepted - due, Redis's clock), the CPU it used (cpuacct) as a part of
//     its share, and how often the quota throttled it, both counted from the first due job on;
//   - burst: `burst` jobs due at once, on-demand mode (the invocation ends when they are out): how long the drain
//     took in a fresh sandbox and again in the same sandbox warm, and the group's peak memory (what Lambda reports
//     as Max Memory Used), or the OOM kill.
// `--window-ms W` runs the stream with DISPATCH_WINDOW_MS=W, its jobs due at random (Poisson, a fixed seed);
// `--burst 0` leaves the burst out. `--arrivals poisson` makes an unwindowed stream's jobs fall due at random too.
// Needs root and cgroup v1 (it says so and stops otherwise). Writes `lambdaSize.byPeriod[<ms>]` in bench/results.json
// (the cost model reads the 100 ms runs), `lambdaSize.windowed[<W>]` with a window, or `lambdaSize.byRate[<rate>]`
// for a stream at another rate than 38 a second (the small deployments the 128 MB floor is for).
import { readFileSync, rmSync, writeFileSync } from 'node:fs'
import { resolve } from 'node:path'
import { vcpuShare } from '../src/scan/observe/cpu-share'
import { createEngine } from '../src/store/engine'
import { LambdaCgroup } from './cgroup'
import { type Invocation, invoke } from './lambda-invoke'
import { type Arrivals, benchJob, dueOffsets, jobId } from './data'
import { flush, startBenchEnv, type BenchEnv } from './env'
import { runMain } from './main'
import { bundlesIn, packageHere } from './packaged'
import { inFlight, median } from '../devkit/stats'

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
/** Bursts drained again by the same child after the fresh one (a warm sandbox); the median counts. */
const WARM_ROUNDS = Number(arg('warm-rounds', '3'))
/** A windowed stream's jobs fall due at random (bench/cpu.ts says why); an unwindowed one's evenly, as before. */
const ARRIVALS = arg('arrivals', WINDOW_MS ? 'poisson' : 'even') as Arrivals
/** Time for the child's module load before the first job falls due (at 128 MB it gets 7% of a CPU). */
const LEAD_MS = 8_000

async function enqueue(env: BenchEnv, queueUrl: string, jobs: ReturnType<typeof benchJob>[]) {
  const engine = createEngine(env.config(queueUrl))
  await inFlight(Math.ceil(jobs.length / 100), 8, async (b) => {
    for (const r of await engine.store.enqueueMany(jobs.slice(b * 100, b * 100 + 100))) if (r instanceof Error) throw r
  })
  await engine.close()
}

/** Flushes Redis, runs `scan` on a fresh queue named `name`, and removes the queue after. */
async function onFreshQueue<T>(env: BenchEnv, name: string, scan: (queueUrl: string) => Promise<T>): Promise<T> {
  await flush(env.admin)
  const queue = await env.queue(name)
  try {
    return await scan(queue.url)
  } finally {
    await queue.remove()
  }
}

/** The scan function's environment: `queueUrl` as its one queue, `mode`, the window, and its end (`deadline`). */
function scanEnv(queueUrl: string, mode: 'continuous' | 'on-demand', deadline: number, extra = {}) {
  return {
    QUEUES: `bench=${queueUrl}`,
    SCAN_MODE: mode,
    DISPATCH_WINDOW_MS: String(WINDOW_MS),
    DEADLINE: String(deadline),
    ...extra,
  }
}

function steady(env: BenchEnv, bundle: string, mb: number) {
  return onFreshQueue(env, 'lambda-steady', async (queueUrl) => {
    const firstDue = Date.now() + LEAD_MS
    const count = Math.round(RATE * SECONDS)
    const offsets = dueOffsets(count, RATE, ARRIVALS)
    await enqueue(
      env,
      queueUrl,
      offsets.map((offset, i) => benchJob(jobId(`ls${mb}`, i), { atMs: firstDue + offset })),
    )
    // Random arrivals may run past SECONDS (at 4 a second over 60 s, by ~4 s one time in three): wait for the last.
    const deadline = firstDue + Math.max(SECONDS * 1000, offsets.at(-1)!) + WINDOW_MS + 3_000
    const r = await invoke(env, bundle, mb, PERIOD_MS, scanEnv(queueUrl, 'continuous', deadline), firstDue)
    if (r.report && r.report.dispatched !== count) throw new Error(`steady: ${r.report.dispatched} of ${count} sent`)
    return { count, ...r }
  })
}

/**
 * A burst drained twice in one child: first by a fresh sandbox (module load, V8 compiling as it goes: what an
 * on-demand start meets), then by the same sandbox warm (what a continuous-mode burst meets: its runs reuse two
 * sandboxes minute after minute, src/scan/run/relay.ts).
 */
async function burst(env: BenchEnv, bundle: string, mb: number): Promise<Invocation | null> {
  if (BURST === 0) return null
  const jobs = (round: string) =>
    Array.from({ length: BURST }, (_, i) => benchJob(jobId(`lb${mb}${round}`, i), { delayMs: 0 }))
  return onFreshQueue(env, 'lambda-burst', async (queueUrl) => {
    await enqueue(env, queueUrl, jobs('cold'))
    const scan = scanEnv(queueUrl, 'on-demand', Date.now() + 240_000, { ON_DEMAND_LINGER_MS: '200' })
    const r = await invoke(env, bundle, mb, PERIOD_MS, scan, undefined, {
      rounds: WARM_ROUNDS,
      ready: async (round) => {
        await enqueue(env, queueUrl, jobs(`warm${round}`))
        return Date.now() + 240_000
      },
    })
    for (const [i, round] of (r.report?.rounds ?? []).entries())
      if (round.dispatched !== BURST) throw new Error(`burst ${i + 1}: ${round.dispatched} of ${BURST} sent`)
    return r
  })
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
      'MB | load ms | steady p50 / p99 / max ms | share used | periods throttled | steady peak MB | burst drain s (fresh / warm) | burst peak MB',
    )
    for (const mb of SIZES_MB) {
      const s = await steady(env, bundle, mb)
      const b = await burst(env, bundle, mb)
      const stream = streamFigures(s, mb)
      const warmRounds = b?.report?.rounds.slice(1) ?? []
      const row = {
        memoryMb: mb,
        loadMs: s.report?.loadMs ?? null,
        steady: { jobsPerSec: RATE, seconds: SECONDS, lateness: s.report?.lateness ?? null, killed: s.signal },
        stream,
        steadyPeakMb: s.cgroup.peakMemoryMb,
        burst: {
          jobs: BURST,
          drainS: b?.report ? b.report.durationMs / 1000 : null,
          // The warm drains' median, and their CPU as a part of the share: near 1, a drain is CPU-bound.
          warmDrainS: warmRounds.length ? median(warmRounds.map((r) => r.durationMs)) / 1000 : null,
          warmShareUsed: warmRounds.length
            ? median(warmRounds.map((r) => r.cpuMs / (r.durationMs * vcpuShare(mb))))
            : null,
          killed: b?.signal ?? null,
        },
        burstPeakMb: b?.cgroup.peakMemoryMb ?? null,
        burstLimitHits: b?.cgroup.limitHits ?? 0,
      }
      rows.push(row)
      const l = row.steady.lateness
      console.log(
        `${mb} | ${row.loadMs?.toFixed(0) ?? '-'} | ${l ? `${l.p50} / ${l.p99} / ${l.max}` : `killed (${s.signal})`} | ` +
          `${stream ? `${(stream.cpuShareUsed * 100).toFixed(0)}%` : '-'} | ` +
          `${stream ? `${stream.throttledPeriods} of ${stream.periods}` : '-'} | ${row.steadyPeakMb.toFixed(0)} | ` +
          `${b ? (row.burst.drainS ? `${row.burst.drainS.toFixed(1)} / ${row.burst.warmDrainS?.toFixed(1) ?? '-'}` : `killed (${b.signal})`) : '-'} | ${row.burstPeakMb?.toFixed(0) ?? '-'}${row.burstLimitHits ? ` (limit hit ${row.burstLimitHits}x)` : ''}`,
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
