// Diagnostics of the burst's repetitions (why `npm run bench` warms up with untimed rounds): not part of `npm run bench`.
//   node scripts/run-ts.mjs bench/burst-reps.ts [reps] [variant...]
// Runs npm run bench's SQS section (one untimed raw run, one untimed burst, then repetitions of raw and burst in
// alternating order) and prints, per phase: wall time and rate, CPU per message of each process (this one, fauxqs,
// redis-server), this process's GC, and for a burst its timeline (first and last send after the due time, the
// enqueue's lateness, claims and jobs per claim, SendMessageBatch calls and their mean number in flight).
// Variants: reuse (one engine and SQS client for every burst, as the scan function keeps them), warm=N (N untimed
// rounds of a raw run and a burst first; 1 as npm run bench), fauxqs=N (N more untimed raw messages first).
// With `node --trace-opt --trace-deopt .build/burst-reps.cjs`, each phase prints a `### phase` line on stdout,
// so the V8 lines between two of them are that phase's.
import { sleep } from '../devkit/sleep'
import { readFileSync } from 'node:fs'
import { performance, PerformanceObserver } from 'node:perf_hooks'
import type { SQSClient } from '@aws-sdk/client-sqs'
import { GetQueueAttributesCommand } from '@aws-sdk/client-sqs'
import { createScanner } from '../src/scan/create-scanner'
import type { NewJob } from '../src/store/job-store'
import { createSqsClient } from '../src/sqs/sqs-client'
import { createEngine, type Engine } from '../src/store/engine'
import { benchJob, jobId } from './data'
import { flush, info, processCpuSeconds, startBenchEnv, type BenchEnv } from './env'
import { runMain } from './main'
import { measureRawSqs } from './raw-sqs'
import { inFlight, median } from '../devkit/stats'

const args = process.argv.slice(2)
const reps = Number(args.find((a) => /^\d+$/.test(a)) ?? 3)
const reuse = args.includes('reuse')
const warmRounds = Number(args.find((a) => a.startsWith('warm='))?.slice(5) ?? 1)
const fauxqsExtra = Number(args.find((a) => a.startsWith('fauxqs='))?.slice(7) ?? 0)
const JOBS = 20_000
const RAW = 40_000

let gcMs = 0
let gcCount = 0
new PerformanceObserver((list) => {
  for (const e of list.getEntries()) {
    gcMs += e.duration
    gcCount++
  }
}).observe({ entryTypes: ['gc'] })

async function redisCpu(env: BenchEnv): Promise<number> {
  const cpu = await info(env.admin, 'cpu')
  return Number(cpu.used_cpu_user) + Number(cpu.used_cpu_sys)
}

const rssMb = (pid: number) =>
  Math.round(Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024)

/** Wall, CPU per message of the three processes and GC of one phase. */
async function phase<T>(env: BenchEnv, label: string, messages: number, fn: () => Promise<T>) {
  process.stdout.write(`### phase ${label} ${Math.round(performance.now() * 1000)}\n`)
  const fauxqsPid = env.sqs.process.pid!
  const [f0, r0, c0, g0, n0] = [processCpuSeconds(fauxqsPid), await redisCpu(env), process.cpuUsage(), gcMs, gcCount]
  const t0 = performance.now()
  const result = await fn()
  const wall = performance.now() - t0
  const c = process.cpuUsage(c0)
  const per = (s: number) => ((s * 1e6) / messages).toFixed(1)
  const line = {
    self: per((c.user + c.system) / 1e6),
    fauxqs: per(processCpuSeconds(fauxqsPid) - f0),
    redis: per((await redisCpu(env)) - r0),
    gc: `${gcCount - n0}x ${(gcMs - g0).toFixed(0)}ms`,
    fauxqsRssMb: rssMb(fauxqsPid),
    heapMb: Math.round(process.memoryUsage().heapUsed / 1e6),
  }
  return { result, wall, line }
}

interface Parts {
  engine: Engine
  sqs: SQSClient
}

async function burst(env: BenchEnv, rep: number, kept: Parts | undefined) {
  await flush(env.admin)
  const queue = await env.queue('burst')
  const config = env.config(queue.url)
  // A kept engine keeps its queue map: point it at this burst's queue.
  const parts = kept
    ? { engine: kept.engine, sqs: kept.sqs }
    : { engine: createEngine(config), sqs: createSqsClient(config) }
  if (kept) Object.assign(parts.engine.config.queues, config.queues)
  const lateness: number[] = []
  const claimSizes: number[] = []
  let calls = 0
  let inFlightNow = 0
  let inFlightArea = 0
  let lastChange = performance.now()
  const tick = (d: number) => {
    const now = performance.now()
    inFlightArea += inFlightNow * (now - lastChange)
    lastChange = now
    inFlightNow += d
  }
  const send = parts.sqs.send.bind(parts.sqs)
  // biome-ignore lint/suspicious/noExplicitAny: a counting wrapper around the client's own send
  ;(parts.sqs as any).send = async (cmd: any, ...rest: any[]) => {
    calls++
    tick(1)
    try {
      return await send(cmd, ...rest)
    } finally {
      tick(-1)
    }
  }
  const { scanner, close } = createScanner(parts.engine, parts.sqs, {
    onSent: (_j, _a, late) => void lateness.push(late),
    onClaimed: (_s, r) => void (r.jobs.length && claimSizes.push(r.jobs.length)),
  })
  const run = scanner.run(Date.now() + 120_000)
  await sleep(500)
  const at = Date.now() + 5_000
  const all: NewJob[] = Array.from({ length: JOBS }, (_, i) => benchJob(jobId(`b${rep}`, i), { atMs: at }))
  await inFlight(JOBS / 100, 8, async (b) => {
    for (const r of await parts.engine.store.enqueueMany(all.slice(b * 100, b * 100 + 100)))
      if (r instanceof Error) throw r
  })
  const enqueuedLate = Math.max(0, Date.now() - at)
  await sleep(Math.max(0, at - Date.now() - 50))
  const started = performance.now()
  const out = await phase(env, `burst ${rep}`, JOBS, async () => {
    while (lateness.length < JOBS) await sleep(5)
  })
  const span = performance.now() - started
  scanner.stop()
  await run
  await close()
  const attrs = await parts.sqs.send(
    new GetQueueAttributesCommand({ QueueUrl: queue.url, AttributeNames: ['ApproximateNumberOfMessages'] }),
  )
  // Back to the client's own method: an own property left behind would change the client's shape.
  delete (parts.sqs as unknown as { send?: unknown }).send
  if (kept) {
    const r = parts.engine.redis as unknown as NodeJS.EventEmitter
    console.log(
      `  kept engine listeners: ${r
        .eventNames()
        .map((n) => `${String(n)}=${r.listenerCount(n)}`)
        .join(' ')}`,
    )
  }
  if (!kept) {
    parts.sqs.destroy()
    await parts.engine.close()
  }
  await queue.remove()
  const last = Math.max(...lateness)
  const first = Math.min(...lateness)
  console.log(
    `burst ${rep}: last ${last} ms (first ${first}, p50 ${median(lateness)}), enqueue late ${enqueuedLate}, ` +
      `drain ${((JOBS / (last - enqueuedLate)) * 1000).toFixed(0)}/s, claims ${claimSizes.length} (median ${median(claimSizes)} jobs), ` +
      `sends ${calls}, mean in flight ${(inFlightArea / span).toFixed(1)}, in queue ${attrs.Attributes?.ApproximateNumberOfMessages}; ` +
      `µs/msg ${JSON.stringify(out.line)}`,
  )
  return { last, drain: (JOBS / (last - enqueuedLate)) * 1000, self: out.line.self }
}

async function raw(env: BenchEnv, rep: number, messages = RAW, kept?: SQSClient) {
  const out = await phase(env, `raw ${rep}`, messages + 3000, () => measureRawSqs(env, messages, rep, 10, kept))
  console.log(
    `raw ${rep}: ${out.result.messagesPerSec.toFixed(0)}/s (${(out.wall / 1000).toFixed(2)} s with warm-up); µs/msg ${JSON.stringify(out.line)}`,
  )
  return out.result.messagesPerSec
}

async function main() {
  const env = await startBenchEnv()
  try {
    console.log(`reps ${reps}, reuse ${reuse}, warm rounds ${warmRounds}, fauxqs extra ${fauxqsExtra}`)
    const kept = reuse
      ? {
          engine: createEngine(env.config('http://127.0.0.1/x')),
          sqs: createSqsClient(env.config('http://127.0.0.1/x')),
        }
      : undefined
    const rawKept = reuse ? createSqsClient(env.config('http://127.0.0.1/x')) : undefined
    if (fauxqsExtra) await raw(env, 97, fauxqsExtra, rawKept)
    for (let w = 0; w < warmRounds; w++) {
      await raw(env, 99 - 2 * w, RAW / 2, rawKept)
      await burst(env, 98 - 2 * w, kept)
    }
    const shares: number[] = []
    const rows: string[] = []
    for (let rep = 0; rep < reps; rep++) {
      let b: { drain: number; last: number; self: string } | undefined
      if (rep % 2) b = await burst(env, rep, kept)
      const r = await raw(env, rep, RAW, rawKept)
      if (rep % 2 === 0) b = await burst(env, rep, kept)
      shares.push(b!.drain / r)
      rows.push(`${b!.last}ms/${(r / 1000).toFixed(1)}k/${b!.self}`)
      console.log(`rep ${rep}: share ${(shares.at(-1)! * 100).toFixed(0)}%`)
    }
    console.log(
      `SUMMARY ${args.join(',') || 'base'} share ${(median(shares) * 100).toFixed(1)}% (${shares.map((s) => (s * 100).toFixed(0)).join('/')}) burst-ms/raw-rate/self-us: ${rows.join(' ')}`,
    )
    console.log(
      `median share ${(median(shares) * 100).toFixed(1)}% of ${shares.map((s) => (s * 100).toFixed(0)).join(' / ')}`,
    )
    rawKept?.destroy()
    if (kept) {
      kept.sqs.destroy()
      await kept.engine.close()
    }
  } finally {
    await env.stop()
  }
}

runMain(main)
