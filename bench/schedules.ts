// `npm run bench:schedules [-- --quick]`: what recurring schedules cost, against a private redis-server and fauxqs
// (started on free loopback ports, stopped at the end).
//   memory  100,000 schedules (half cron in a zone, half fixed-rate; 200-byte payload, 20-char ids): used_memory
//           growth per schedule, which includes its pending occurrence job; next to it, the same number of plain
//           pending jobs with the same payload in the same run: the difference is what the schedule itself costs.
//   CPU     N due plain jobs vs N due occurrences (each ack creating the next occurrence), each drained by the real
//           scanner into SQS; CPU of this process (the scanner) and of redis-server per message, medians over
//           interleaved repetitions, and their ratio.
import { sleep } from '../devkit/sleep'
import { createScanner } from '../src/scan/create-scanner'
import { createSqsClient } from '../src/sqs/sqs-client'
import { createEngine, type Engine } from '../src/store/engine'
import type { ScheduleSpec } from '../src/store/schedule-record'
import { ScheduleStore } from '../src/store/schedule-store'
import { PAYLOAD_JSON, TARGET, benchJob, jobId } from './data'
import { flush, info, startBenchEnv, usedMemory, type BenchEnv } from './env'
import { inFlight, median } from '../devkit/stats'
import { fmt, printTable, type Row } from './table'
import { runMain } from './main'

const quick = process.argv.includes('--quick')
const size = quick ? { schedules: 20_000, due: 2_000, reps: 1 } : { schedules: 100_000, due: 10_000, reps: 3 }

const log = (msg: string) => console.error(`[bench:schedules ${new Date().toISOString().slice(11, 19)}] ${msg}`)

const ZONE = 'Europe/Berlin'

/** Half cron in a zone, half fixed-rate. With `dueAtMs` (a whole second), both kinds first fire exactly then. */
function spec(i: number, dueAtMs?: number): ScheduleSpec {
  if (i % 2 === 0)
    return {
      queue: TARGET,
      everyMs: 3_600_000,
      timezone: 'UTC',
      paused: false,
      ...(dueAtMs ? { startAtMs: dueAtMs } : {}),
    }
  return { queue: TARGET, cron: dueAtMs ? dailyAt(dueAtMs) : '0 9 * * MON-FRI', timezone: ZONE, paused: false }
}

/** A 6-field cron that fires once a day at this instant's wall-clock second in ZONE. */
function dailyAt(ms: number): string {
  const parts = new Intl.DateTimeFormat('en-GB', {
    timeZone: ZONE,
    hour: 'numeric',
    minute: 'numeric',
    second: 'numeric',
    hourCycle: 'h23',
  }).formatToParts(new Date(ms))
  const part = (type: string) => Number(parts.find((p) => p.type === type)!.value)
  return `${part('second')} ${part('minute')} ${part('hour')} * * *`
}

async function putSchedules(engine: Engine, count: number, tag: string, dueAtMs?: number): Promise<void> {
  const schedules = new ScheduleStore(engine.store.redis, engine.keys, engine.replication)
  await inFlight(count, 32, (i) =>
    schedules.put({ id: jobId(tag, i), spec: spec(i, dueAtMs), payloadJson: PAYLOAD_JSON }),
  )
}

async function measureMemory(env: BenchEnv, count: number) {
  const perKind: Record<string, number> = {}
  for (const kind of ['jobs', 'schedules'] as const) {
    await flush(env.admin)
    const engine = createEngine(env.config('http://127.0.0.1/unused'))
    await engine.store.ready()
    const before = await usedMemory(env.admin)
    if (kind === 'schedules') await putSchedules(engine, count, 'm')
    else {
      const at = Date.now() + 86_400_000
      await inFlight(Math.ceil(count / 1000), 4, async (b) => {
        const jobs = Array.from({ length: Math.min(1000, count - b * 1000) }, (_, k) =>
          benchJob(jobId('j', b * 1000 + k), { atMs: at + k }),
        )
        for (const r of await engine.store.enqueueMany(jobs)) if (r instanceof Error) throw r
      })
    }
    perKind[kind] = ((await usedMemory(env.admin)) - before) / count
    await engine.close()
  }
  await flush(env.admin)
  return { perSchedule: perKind.schedules!, perJob: perKind.jobs! }
}

async function redisCpuSeconds(env: BenchEnv): Promise<number> {
  const cpu = await info(env.admin, 'cpu')
  return Number(cpu.used_cpu_user) + Number(cpu.used_cpu_sys)
}

/** N messages due at once, drained by one scanner: CPU microseconds per message in this process and in Redis. */
async function measureDrain(env: BenchEnv, kind: 'jobs' | 'occurrences', n: number, rep: number) {
  await flush(env.admin)
  const queue = await env.queue(`drain-${kind}`)
  const config = env.config(queue.url)
  const engine = createEngine(config)
  const dueAt = Math.ceil((Date.now() + 6_000) / 1000) * 1000
  if (kind === 'occurrences') await putSchedules(engine, n, `o${rep}`, dueAt)
  else {
    await inFlight(Math.ceil(n / 100), 8, async (b) => {
      const jobs = Array.from({ length: Math.min(100, n - b * 100) }, (_, k) =>
        benchJob(jobId(`p${rep}`, b * 100 + k), { atMs: dueAt }),
      )
      for (const r of await engine.store.enqueueMany(jobs)) if (r instanceof Error) throw r
    })
  }
  if (Date.now() > dueAt) log(`  ${kind}: setup ended ${Date.now() - dueAt} ms after the due time`)
  await sleep(Math.max(0, dueAt - Date.now()) + 200)
  const sqs = createSqsClient(config)
  let sent = 0
  const { scanner, close } = createScanner(engine, sqs, { onSent: () => void sent++ })
  const cpu0 = process.cpuUsage()
  const redis0 = await redisCpuSeconds(env)
  const run = scanner.run(Date.now() + 120_000)
  const deadline = Date.now() + 120_000
  while (sent < n && Date.now() < deadline) await sleep(10)
  if (sent < n) throw new Error(`${kind}: only ${sent} of ${n} sent within 120 s`)
  scanner.stop()
  await run // every ack settled
  const cpu = process.cpuUsage(cpu0)
  const redisCpu = (await redisCpuSeconds(env)) - redis0
  const pending = (await engine.store.stats()).queues[TARGET]?.pending ?? 0
  await close()
  sqs.destroy()
  await engine.close()
  await queue.remove()
  // Occurrences leave their successors pending (one per schedule); plain jobs leave nothing.
  if (pending !== (kind === 'occurrences' ? n : 0)) throw new Error(`${kind}: ${pending} pending after the drain`)
  return { scannerUs: (cpu.user + cpu.system) / n, redisUs: (redisCpu * 1e6) / n }
}

async function main() {
  const env = await startBenchEnv()
  const rows: Row[] = []
  try {
    log(`memory: ${size.schedules} schedules vs ${size.schedules} plain jobs`)
    const memory = await measureMemory(env, size.schedules)
    rows.push({
      measure: `memory per schedule (${fmt.int(size.schedules)}, incl. its pending occurrence)`,
      value: `${fmt.int(memory.perSchedule)} B`,
    })
    rows.push({
      measure: 'memory per plain pending job (same payload, same run)',
      value: `${fmt.int(memory.perJob)} B`,
    })
    rows.push({
      measure: 'schedule overhead over its occurrence job',
      value: `${fmt.int(memory.perSchedule - memory.perJob)} B`,
    })
    const drains: Record<'jobs' | 'occurrences', { scannerUs: number; redisUs: number }[]> = {
      jobs: [],
      occurrences: [],
    }
    for (let rep = 0; rep < size.reps; rep++) {
      for (const kind of ['jobs', 'occurrences'] as const) {
        log(`drain ${kind}, repetition ${rep + 1}/${size.reps}: ${size.due} due at once`)
        drains[kind].push(await measureDrain(env, kind, size.due, rep))
      }
    }
    const med = (kind: 'jobs' | 'occurrences', k: 'scannerUs' | 'redisUs') => median(drains[kind].map((d) => d[k]))
    for (const k of ['scannerUs', 'redisUs'] as const) {
      const who = k === 'scannerUs' ? 'scanner process' : 'redis-server'
      rows.push({ measure: `${who} CPU per plain job`, value: `${med('jobs', k).toFixed(0)} us` })
      rows.push({
        measure: `${who} CPU per occurrence (ack creates the next)`,
        value: `${med('occurrences', k).toFixed(0)} us`,
        note: `x${(med('occurrences', k) / med('jobs', k)).toFixed(2)} of a plain job; runs ${drains.jobs.map((d) => d[k].toFixed(0)).join('/')} vs ${drains.occurrences.map((d) => d[k].toFixed(0)).join('/')}`,
      })
    }
  } finally {
    await env.stop()
  }
  console.log(printTable(rows))
}

runMain(main)
