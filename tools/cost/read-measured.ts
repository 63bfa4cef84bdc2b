// What the benches measured, read from bench/results.json into the figures the cost model bills from
// (tools/cost/measured.ts): the sized runs of `npm run bench:lambda-size` where they exist, the in-process figures
// otherwise.
import { readFileSync } from 'node:fs'
import { resolve } from 'node:path'
import { median } from '../../devkit/stats'
import { vcpuShare } from '../../src/scan/observe/cpu-share'
import type { Measured } from './measured'
import { measureObservability } from './metrics'

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

export async function measured(root = process.cwd()): Promise<Measured> {
  const r = JSON.parse(readFileSync(resolve(root, 'bench/results.json'), 'utf8'))
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
