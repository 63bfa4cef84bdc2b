// Prints the monthly bill line by line (tools/cost/model.ts) from the measured figures in bench/results.json and the
// dated price table in tools/cost/prices.ts. --compare adds the table of docs/cost.md: every enqueue path and mode, and
// EventBridge Scheduler, QStash and Step Functions, at 1M, 10M and 100M jobs a month. Options: USAGE below.
import { readFileSync } from 'node:fs'
import { resolve } from 'node:path'
import {
  bill,
  scanCapacityPerSec,
  burstCpuMsPer1000,
  PEAK_FACTOR,
  scanMemoryOf,
  STREAM_CPU_SHARE,
  type Egress,
  ENQUEUE_PATHS,
  type EnqueuePath,
  type Measured,
  type Scenario,
  type ScanMode,
} from './model'
import { jobsPerRequest, steadyCpuMsPerJob, streamCpuShare } from './stream'
import { EGRESS } from './egress'
import { measureObservability } from './metrics'
import { compare } from './compare'
import { HOURS_PER_MONTH, PRICES, PRICES_DATE, VALKEY_NODES, type Price } from './prices'
import { vcpuShare } from '../../src/scan/observe/cpu-share'
import { median } from '../../bench/stats'

const usd = (n: number): string => (n < 0 ? `-${usd(-n)}` : n < 0.01 && n > 0 ? `$${n.toFixed(4)}` : `$${n.toFixed(2)}`)

const USAGE = `usage: npm run cost -- --jobs-per-month N [--enqueue api|function-url|function-url-batch|batch|direct]
  [--mode continuous|on-demand] [--window-ms W] [--scan-memory auto|MB] [--api-memory MB] [--payload-bytes B]
  [--wait-hours H] [--receipt-ttl-hours H] [--redis auto|serverless|<node type>] [--replica true|false] [--egress ipv6|endpoints|nat]
  [--endpoint-azs N] [--queues N] [--dashboard true|false] [--free-tier] [--compare] [--prices]`
class UsageError extends Error {}

function parseArgs(argv: string[]): Scenario & { compare: boolean; prices: boolean } {
  const args = new Map<string, string>()
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!
    if (a === '--help' || a === '-h') throw new UsageError('')
    if (!a.startsWith('--')) throw new UsageError(`unexpected argument ${a}`)
    if (a === '--compare' || a === '--prices' || a === '--free-tier') args.set(a.slice(2), 'true')
    else args.set(a.slice(2), argv[++i] ?? '')
  }
  // Every option read below is noted: one left unread is one the model does not know, and would be ignored.
  const read = new Set<string>()
  const get = (name: string) => {
    read.add(name)
    return args.get(name)
  }
  const num = (name: string, fallback: number) => {
    const raw = get(name)
    if (raw === undefined) return fallback
    const n = Number(raw.replace(/_/g, ''))
    if (!Number.isFinite(n) || n < 0) throw new Error(`--${name} must be a number >= 0, got "${raw}"`)
    return n
  }
  const oneOf = <T extends string>(name: string, values: readonly T[], fallback: T): T => {
    const v = (get(name) ?? fallback) as T
    if (!values.includes(v)) throw new Error(`--${name} must be one of ${values.join(', ')}, got "${v}"`)
    return v
  }
  if (!['jobs-per-month', 'compare', 'prices'].some((a) => args.has(a)))
    throw new UsageError('--jobs-per-month N is required')
  const scenario = {
    jobsPerMonth: num('jobs-per-month', 0),
    enqueue: oneOf<EnqueuePath>('enqueue', ENQUEUE_PATHS, 'api'),
    mode: oneOf<ScanMode>('mode', ['continuous', 'on-demand'], 'continuous'),
    scanMemoryMb: (get('scan-memory') ?? 'auto') === 'auto' ? ('auto' as const) : num('scan-memory', 512),
    apiMemoryMb: num('api-memory', 512),
    payloadBytes: num('payload-bytes', 200),
    waitHours: num('wait-hours', 24),
    receiptTtlHours: num('receipt-ttl-hours', 24),
    windowMs: num('window-ms', 0),
    redis: get('redis') ?? 'auto',
    egress: oneOf<Egress>('egress', EGRESS, 'ipv6'),
    endpointAzs: num('endpoint-azs', 2),
    queues: num('queues', 3),
    replica: oneOf('replica', ['true', 'false'], 'true') === 'true',
    dashboard: oneOf('dashboard', ['true', 'false'], 'true') === 'true',
    freeTier: get('free-tier') !== undefined,
    compare: get('compare') !== undefined,
    prices: get('prices') !== undefined,
  }
  const unknown = [...args.keys()].find((name) => !read.has(name))
  if (unknown) throw new UsageError(`unknown option --${unknown}`)
  return scenario
}

/** The price table as docs/cost.md shows it. */
function printPrices() {
  console.log(`| what | price (USD) | source |\n|---|---|---|`)
  const rows = [
    ...Object.values(PRICES).map((p: Price) => [
      p.usd < 0.001 ? `${(p.usd * 1e6).toPrecision(6).replace(/\.?0+$/, '')} per million` : String(p.usd),
      p.unit,
      p.source,
      p.unverified,
    ]),
    ...VALKEY_NODES.map((n) => [
      String(n.hour.usd),
      `${n.type} Valkey node-hour (${n.memoryGiB} GiB)`,
      n.hour.source,
      n.hour.unverified,
    ]),
  ]
  for (const [usd, unit, source, unverified] of rows)
    console.log(`| ${unit}${unverified ? ' †' : ''} | ${usd} | ${source} |`)
}

/** One run of `npm run bench:lambda-size`, as bench/results.json keeps it. */
interface SizedRun {
  rate: number
  arrivals?: 'even' | 'poisson'
  rows: {
    memoryMb: number
    stream: { cpuShareUsed: number } | null
    burst: { jobs: number; drainS: number | null; warmDrainS?: number | null }
  }[]
}

type SizedRuns = { lambdaSize?: { byPeriod?: Record<string, SizedRun>; windowed?: Record<string, SizedRun> } }

/** The sized runs the model reads: the 100 ms quota period (Linux's default), when that bench ran. */
function sizedRun(r: SizedRuns): SizedRun | undefined {
  return r.lambdaSize?.byPeriod?.['100']
}

/** The windowed sized run (the largest window measured), when `bench:lambda-size -- --window-ms W` ran. */
function windowedLevel(r: SizedRuns): Pick<Measured, 'scanWindowedStreamCpuMsPerJob'> {
  const [window, run] = Object.entries(r.lambdaSize?.windowed ?? {}).sort(([a], [b]) => Number(b) - Number(a))[0] ?? []
  const level = streamLevel(run).scanStreamCpuMsPerJob
  return level ? { scanWindowedStreamCpuMsPerJob: { ...level, windowMs: Number(window), arrivals: run?.arrivals } } : {}
}

/** CPU ms per 1,000 jobs of a size's burst drain: its share x the drain time / the jobs. */
const drainCpuMsPer1000 = (mb: number, drainS: number, jobs: number) => (vcpuShare(mb) * drainS * 1e6) / jobs

/**
 * The sized runs' burst figures by size, fresh and warm (what the model sizes the scan from); and the fresh median
 * over the sizes (what it prints, and uses without a sized run). They count what the deployed function does and what
 * the quota costs; the in-process figure of bench:right-size (the scanner alone, warm) is well below, so it is only the
 * fallback.
 */
function burstBySize(run: SizedRun | undefined): Measured['scanBurstBySize'] {
  return (run?.rows ?? [])
    .filter((row) => row.burst.drainS)
    .map((row) => ({
      memoryMb: row.memoryMb,
      freshCpuMsPer1000: drainCpuMsPer1000(row.memoryMb, row.burst.drainS!, row.burst.jobs),
      ...(row.burst.warmDrainS
        ? { warmCpuMsPer1000: drainCpuMsPer1000(row.memoryMb, row.burst.warmDrainS, row.burst.jobs) }
        : {}),
    }))
}

/** The packaged function's CPU per job in the sized runs' steady stream: the median over the sizes it did not
 * saturate (share used under 90%). */
function streamLevel(run: SizedRun | undefined): Pick<Measured, 'scanStreamCpuMsPerJob'> {
  const perJob = (run?.rows ?? [])
    .filter((row) => row.stream && row.stream.cpuShareUsed < 0.9)
    .map((row) => (row.stream!.cpuShareUsed * vcpuShare(row.memoryMb) * 1000) / run!.rate)
  if (!run || perJob.length === 0) return {}
  return { scanStreamCpuMsPerJob: { jobsPerSec: run.rate, cpuMsPerJob: median(perJob) } }
}

async function measured(): Promise<Measured> {
  const r = JSON.parse(readFileSync(resolve(process.cwd(), 'bench/results.json'), 'utf8'))
  if (!r.cpu) throw new Error('bench/results.json has no "cpu" section: run `npm run bench` first')
  if (!r.onDemand) throw new Error('bench/results.json has no "onDemand" section: run `npm run bench:on-demand` first')
  if (!r.receipts) throw new Error('bench/results.json has no "receipts" section: run `npm run bench:receipts` first')
  const bySize = burstBySize(sizedRun(r)) ?? []
  return {
    bytesPerJob200: r.memory.bytesPerJob,
    receiptBytes: r.receipts.bytesPerReceipt,
    scanCpuMsPer1000Jobs: bySize.length ? median(bySize.map((s) => s.freshCpuMsPer1000)) : r.cpu.scanCpuMsPer1000Jobs,
    scanBurstBySize: bySize,
    scanSteadyCpuMsPerJob: r.cpu.steady ?? [],
    scanWindowedCpuMsPerJob: r.cpu.windowed,
    ...windowedLevel(r),
    ...streamLevel(sizedRun(r)),
    apiWallMsPerRequest: r.cpu.apiWallMsPerRequest,
    apiCpuMsPerRequest: r.cpu.apiCpuMsPerRequest,
    apiWallMsPerBatch100: r.cpu.apiWallMsPerBatch100,
    apiCpuMsPerBatch100: r.cpu.apiCpuMsPerBatch100,
    idleRedisCommandsPerSec: r.idle.commandsPerSec,
    emptyTickActiveS: r.onDemand.emptyTickActiveS.mean,
    startedJobActiveS: r.onDemand.jobInvocationActiveS.mean - r.onDemand.delayMs / 1000,
    continuousInvocationS: r.onDemand.continuousInvocationS,
    observability: await measureObservability(r.onDemand.continuousInvocationS, 512),
  }
}

function printBill(s: Scenario, m: Measured) {
  const lines = bill(s, m)
  const total = lines.reduce((a, l) => a + l.usd, 0)
  const width = Math.max(...lines.map((l) => l.item.length))
  console.log(
    `${s.jobsPerMonth.toLocaleString('en-US')} jobs/month, enqueue ${s.enqueue}, scan ${s.mode}, payload ${s.payloadBytes} B, wait ${s.waitHours} h, egress ${s.egress}, ${s.queues} queues, ${s.replica ? 'Redis with a replica' : 'Redis without a replica'}${s.freeTier ? ', free tier applied' : ', no free tier'} (prices ${PRICES_DATE})`,
  )
  for (const l of lines) console.log(`  ${l.item.padEnd(width)}  ${usd(l.usd).padStart(9)}   ${l.quantity}`)
  console.log(
    `  ${'total'.padEnd(width)}  ${usd(total).padStart(9)}${s.jobsPerMonth ? `   = ${usd((total / s.jobsPerMonth) * 1e6)} per million jobs` : ''}`,
  )
  const scanMb = scanMemoryOf(s, m)
  const rate = s.jobsPerMonth / (HOURS_PER_MONTH * 3600)
  console.log(
    `  scan capacity at ${scanMb} MB: ~${Math.round(scanCapacityPerSec(scanMb, m, s.mode)).toLocaleString('en-US')} jobs/s per scanner in a burst (${burstCpuMsPer1000(m, s.mode, scanMb).toFixed(0)} CPU ms per 1,000 jobs in a ${s.mode === 'continuous' && m.scanBurstBySize?.some((p) => p.warmCpuMsPer1000) ? 'warm' : 'fresh'} sandbox, from the sizes measured); ${Math.round(PEAK_FACTOR * rate).toLocaleString('en-US')} needed (${PEAK_FACTOR} x the average rate)`,
  )
  if (rate > 0)
    console.log(
      `  as a steady stream${s.windowMs ? ` with a ${s.windowMs} ms dispatch window (${jobsPerRequest(rate, s.windowMs).toFixed(1)} jobs per SQS request)` : ''}, ${rate.toFixed(1)} jobs/s use ${(streamCpuShare(scanMb, rate, m, s.windowMs) * 100).toFixed(0)}% of ${scanMb} MB's CPU share (${steadyCpuMsPerJob(rate, m, s.windowMs).toFixed(2)} CPU ms per job at that rate${packagedLevel(s, m)}; the model keeps it under ${STREAM_CPU_SHARE * 100}%)`,
    )
  return total
}

/** Which of the packaged function's own figures set the stream's level (bench:lambda-size), for the bill's note. */
function packagedLevel(s: Scenario, m: Measured): string {
  const plain = m.scanStreamCpuMsPerJob
  if (!plain) return ''
  const at = (f: { cpuMsPerJob: number; jobsPerSec: number }) => `${f.cpuMsPerJob.toFixed(2)} ms at ${f.jobsPerSec}/s`
  const windowed = s.windowMs ? m.scanWindowedStreamCpuMsPerJob : undefined
  return `, from the packaged function's ${at(plain)}${windowed ? ` and ${at(windowed)} with a ${windowed.windowMs} ms window` : ''}`
}

async function main() {
  const { compare: wantCompare, prices, ...scenario } = parseArgs(process.argv.slice(2))
  if (prices) return printPrices()
  const m = await measured()
  if (scenario.jobsPerMonth || !wantCompare) printBill(scenario, m)
  if (wantCompare) compare(scenario, m)
  console.log(
    `\nprices: ${Object.values(PRICES).length} list prices dated ${PRICES_DATE} (tools/cost/prices.ts, docs/cost.md)`,
  )
}

main().catch((e) => {
  if (e instanceof UsageError && !e.message) {
    console.log(USAGE)
  } else {
    console.error(`cost: ${e instanceof Error ? e.message : e}`)
    if (e instanceof UsageError) console.error(USAGE)
    process.exit(2)
  }
})
