// What the benches measured, as the cost model reads it (bench/results.json): the figures tools/cost/model.ts bills
// from and tools/cost/stream.ts sizes a steady stream from. Types only.
import type { Observability } from './cloudwatch'

/** A windowed stream's CPU per job; its jobs fell due evenly spaced (the default) or at random. */
export interface WindowedStream {
  jobsPerSec: number
  windowMs: number
  cpuMsPerJob: number
  arrivals?: 'even' | 'poisson'
  /** Measured: jobs per SendMessageBatch request, i.e. per cycle (a cycle carries ten at most). */
  jobsPerRequest?: number
}

/** What `npm run bench` and `npm run bench:on-demand` measured (bench/results.json). */
export interface Measured {
  bytesPerJob200: number
  /**
   * Redis memory per dispatch receipt (`npm run bench:receipts`), by receipts written per shard and hour: a receipt
   * costs less where an hour's hash holds more of them (the hash's own overhead is shared).
   */
  receiptBytes: { perShardHour: number; bytes: number }[]
  /**
   * CPU ms per 1,000 jobs in a burst: from `npm run bench:lambda-size` (the packaged function under Lambda's share,
   * metrics and all) when it ran, else from `npm run bench:right-size` (the scanner alone in the bench process).
   */
  scanCpuMsPer1000Jobs: number
  /**
   * The same by size, from `npm run bench:lambda-size` (share x drain time, per 1,000 jobs), in a fresh sandbox and
   * in the same sandbox warm (its module loaded and its code compiled: 1.3-1.6x faster). Small sizes pay more a job
   * (less room for the collector and the compiler under the quota), so capacity at a size comes from the figures of
   * the sizes measured around it, not from one median. A continuous-mode scanner meets a burst warm (its runs reuse
   * two sandboxes minute after minute); an on-demand start meets it fresh.
   */
  scanBurstBySize?: { memoryMb: number; freshCpuMsPer1000: number; warmCpuMsPer1000?: number }[]
  /**
   * CPU ms per job when jobs fall due one by one at a steady rate (bench/cpu.ts "steady"), by rate: each job its
   * own claim, send and ack, with a sleep in between. Far above the burst figure, and what a steady stream uses.
   */
  scanSteadyCpuMsPerJob: { jobsPerSec: number; cpuMsPerJob: number }[]
  /**
   * CPU ms per job of the packaged function itself in a steady stream (`npm run bench:lambda-size`: cpuacct over the
   * stream, the median over the sizes it did not saturate), when that bench ran. It sets the level of the stream
   * figures (metrics, logging and the quota included, and steadier from run to run); the rows above give their shape
   * over the rate.
   */
  scanStreamCpuMsPerJob?: { jobsPerSec: number; cpuMsPerJob: number }
  /** The same streams with a dispatch window (bench/cpu.ts "windowed"): what a window saves (tools/cost/stream.ts). */
  scanWindowedCpuMsPerJob?: WindowedStream[]
  /** The packaged function's own figure with a window (`npm run bench:lambda-size -- --window-ms W`), when it ran. */
  scanWindowedStreamCpuMsPerJob?: WindowedStream
  apiWallMsPerRequest: number
  apiCpuMsPerRequest: number
  apiWallMsPerBatch100: number
  apiCpuMsPerBatch100: number
  idleRedisCommandsPerSec: number
  emptyTickActiveS: number
  /** A job-started invocation, its 5 s wait for the due time taken out: start, dispatch, linger, exit. */
  startedJobActiveS: number
  continuousInvocationS: number
  /** The scan function's metrics and log bytes, measured from its code (tools/cost/metrics.ts). */
  observability: Observability
}
