// What a steady stream of jobs costs the scan function and SQS, by rate and dispatch window (DISPATCH_WINDOW_MS):
// CPU per job, the share of a memory size it uses, and jobs per SendMessageBatch request. Pure functions over the
// measured rows of `npm run bench:right-size` (bench/results.json), used by tools/cost/model.ts.
//
// Without a window each job of a stream is its own wake-up, claim, SendMessageBatch and ack: one SQS request a job.
// With a window W the scan wakes at the first job's due time + W, or as soon as ten jobs are due (a full request),
// and takes every job due by then, so a cycle carries N = min(10, 1 + jobs due in W) jobs: at an average rate r,
// min(10, 1 + Poisson(r·W)), in one request. Per-cycle CPU (wake, claim, send, ack) is shared by N; per-job CPU
// (message building, parsing) is not. The windowed rows give how much of a job's CPU is of each kind.
import type { Measured, WindowedStream } from './measured'
import { vcpuShare } from '../../src/scan/observe/cpu-share'

/** Most entries SendMessageBatch takes. */
const SQS_BATCH = 10

/**
 * Jobs a windowed cycle carries on average in a stream of `jobsPerSec` arriving at random (Poisson): the first, and
 * those due in its window, ten at most (the scan claims as soon as ten are due).
 */
export function jobsPerCycle(jobsPerSec: number, windowMs: number): number {
  const lambda = (jobsPerSec * windowMs) / 1000
  // E[min(10, 1 + K)], K ~ Poisson(lambda): 10 minus the shortfall of the cycles that end with the window.
  let p = Math.exp(-lambda) // P(K = 0)
  let shortfall = 0
  for (let k = 0; k < SQS_BATCH - 1; k++) {
    shortfall += p * (SQS_BATCH - 1 - k)
    p *= lambda / (k + 1)
  }
  return SQS_BATCH - shortfall
}

/**
 * Jobs per SQS request in a stream of `jobsPerSec` (arrivals at random) with a dispatch window: a cycle's jobs, ten
 * at most, share one request. Without a window, one job a request (jobs due within a send's few milliseconds of each
 * other share one in practice: not counted).
 */
export function jobsPerRequest(jobsPerSec: number, windowMs: number): number {
  return windowMs === 0 ? 1 : jobsPerCycle(jobsPerSec, windowMs)
}

/**
 * CPU ms per job of a steady stream at `jobsPerSec` with a dispatch window: the bench:right-size rows, interpolated on a
 * log scale of the rate (below the slowest row its figure, above the fastest its figure), scaled to the packaged
 * function's own figure when bench:lambda-size measured one, and with a window the part of it that is per cycle
 * divided by the jobs a cycle carries.
 */
export function steadyCpuMsPerJob(jobsPerSec: number, m: Measured, windowMs = 0): number {
  const level = m.scanStreamCpuMsPerJob
  const scale = level ? level.cpuMsPerJob / interpolated(m.scanSteadyCpuMsPerJob, level.jobsPerSec) : 1
  const unwindowed = interpolated(m.scanSteadyCpuMsPerJob, jobsPerSec) * scale
  if (windowMs === 0) return unwindowed
  const perJob = perJobShare(jobsPerSec, m)
  return unwindowed * (perJob + (1 - perJob) / jobsPerCycle(jobsPerSec, windowMs))
}

/**
 * The share of a stream's CPU per job that is the job's own (not its cycle's), at `jobsPerSec`: from each windowed
 * row and the unwindowed row of its rate (bench:right-size), and scaled to the packaged function's own pair when
 * bench:lambda-size measured both: the packaged function also has per-second work (metrics, the memory watch) that
 * no window divides. c_windowed = c (f + (1 - f) / N), N the jobs a cycle carried.
 */
export function perJobShare(jobsPerSec: number, m: Measured): number {
  const rows = (m.scanWindowedCpuMsPerJob ?? []).flatMap((w) => {
    const plain = m.scanSteadyCpuMsPerJob.find((s) => s.jobsPerSec === w.jobsPerSec)
    return plain ? [{ jobsPerSec: w.jobsPerSec, cpuMsPerJob: ownShare(plain.cpuMsPerJob, w) }] : []
  })
  if (rows.length === 0) throw new Error('no windowed stream figures: run `npm run bench:right-size`')
  const [plain, windowed] = [m.scanStreamCpuMsPerJob, m.scanWindowedStreamCpuMsPerJob]
  const scale =
    plain && windowed && plain.jobsPerSec === windowed.jobsPerSec
      ? ownShare(plain.cpuMsPerJob, windowed) / interpolated(rows, windowed.jobsPerSec)
      : 1
  return Math.min(1, interpolated(rows, jobsPerSec) * scale)
}

/**
 * f from c_windowed = c (f + (1 - f) / N): N the jobs a cycle carried, measured by the row when it has the figure
 * (its jobs per request: a cycle is one request), else from its arrivals.
 */
function ownShare(plainCpuMsPerJob: number, w: WindowedStream) {
  const n =
    w.jobsPerRequest ??
    (w.arrivals === 'poisson'
      ? jobsPerCycle(w.jobsPerSec, w.windowMs)
      : Math.min(SQS_BATCH, Math.floor((w.jobsPerSec * w.windowMs) / 1000) + 1))
  const f = (w.cpuMsPerJob / plainCpuMsPerJob - 1 / n) / (1 - 1 / n)
  return Math.min(1, Math.max(0, f))
}

/** Interpolates rows of (jobsPerSec, cpuMsPerJob) on a log scale of the rate, holding the ends. */
function interpolated(unsorted: readonly { jobsPerSec: number; cpuMsPerJob: number }[], jobsPerSec: number): number {
  const rows = [...unsorted].sort((a, b) => a.jobsPerSec - b.jobsPerSec)
  if (rows.length === 0) throw new Error('no steady-stream CPU figures: run `npm run bench:right-size`')
  if (jobsPerSec <= rows[0]!.jobsPerSec) return rows[0]!.cpuMsPerJob
  for (let i = 1; i < rows.length; i++) {
    const [a, b] = [rows[i - 1]!, rows[i]!]
    if (jobsPerSec <= b.jobsPerSec) {
      const f = Math.log(jobsPerSec / a.jobsPerSec) / Math.log(b.jobsPerSec / a.jobsPerSec)
      return a.cpuMsPerJob + f * (b.cpuMsPerJob - a.cpuMsPerJob)
    }
  }
  return rows[rows.length - 1]!.cpuMsPerJob
}

/** The part of a size's CPU share a steady stream of `jobsPerSec` uses. */
export function streamCpuShare(memoryMb: number, jobsPerSec: number, m: Measured, windowMs = 0): number {
  return (jobsPerSec * steadyCpuMsPerJob(jobsPerSec, m, windowMs)) / 1000 / vcpuShare(memoryMb)
}
