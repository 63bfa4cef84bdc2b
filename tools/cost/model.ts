// The monthly bill of a deployment, line by line, from the measured figures in bench/results.json and the price
// table of tools/cost/prices.ts. Pure functions; tools/cost/cli.ts is the command line around them (docs/cost.md explains
// every line and every assumption).
import { HOURS_PER_MONTH, NODE_RESERVED_MEMORY, PRICES, VALKEY_NODES } from './prices'
import { freeTierLine } from './free-tier'
import { cloudWatchLines } from './cloudwatch'
import { type Egress, egressLines } from './egress'

export type { Egress } from './egress'
export { alternatives } from './peers'
import { vcpuShare } from '../../src/scan/observe/cpu-share'
import { jobsPerRequest, streamCpuShare } from './stream'
import type { Measured } from './measured'
export type { Measured, WindowedStream } from './measured'

/**
 * How jobs reach Redis: one POST /jobs per job through the HTTP API (`api`) or a Function URL (`function-url`),
 * POST /jobs/batch of 100 through either (`batch`, `function-url-batch`), or the `DelayQueue` client (`direct`).
 */
export type EnqueuePath = 'api' | 'function-url' | 'batch' | 'function-url-batch' | 'direct'
export const ENQUEUE_PATHS: readonly EnqueuePath[] = ['api', 'function-url', 'batch', 'function-url-batch', 'direct']
const isBatch = (p: EnqueuePath) => p === 'batch' || p === 'function-url-batch'
export type ScanMode = 'continuous' | 'on-demand'

export interface Scenario {
  jobsPerMonth: number
  enqueue: EnqueuePath
  mode: ScanMode
  /** 'auto': the size the model recommends for this workload (recommendedScanMemoryMb). */
  scanMemoryMb: number | 'auto'
  apiMemoryMb: number
  payloadBytes: number
  /** Average time from enqueue to due. */
  waitHours: number
  /** DISPATCH_RECEIPT_TTL_MS in hours: how long a dispatched job's receipt stays in Redis. Default 24 (0: none). */
  receiptTtlHours?: number
  /** DISPATCH_WINDOW_MS: how long a due job may wait for the ones due after it, to share their SQS request. */
  windowMs: number
  /** `auto`: the cheaper of ElastiCache Serverless and the smallest node that fits; `node`: that node; or a type. */
  redis: 'auto' | 'serverless' | 'node' | string
  egress: Egress
  /** With egress 'endpoints' or 'nat': AZs, one endpoint or NAT gateway in each (0: the VPC already has them). */
  endpointAzs: number
  /** Target queues (each a DLQ alarm and, while busy, its own metrics). Default 3. */
  queues?: number
  /** A node-based Redis with a replica (what replicated writes, REDIS_WAIT_REPLICAS=auto, wait for). Default true. */
  replica?: boolean
  /** The CloudWatch dashboard (serverless param `dashboard`). Default true. */
  dashboard?: boolean
  /** Take the account's always-free tiers off (Lambda, SQS, CloudWatch). Default false. */
  freeTier?: boolean
  /** Scheduled scan invocations an hour (the template's rate). Default 60. */
  ticksPerHour?: number
  /** CloudWatch alarms (the template's count, each metric an alarm reads billed). Default 4 + one per queue. */
  alarms?: number
  /** Whether each API request writes an HTTP API access log line. Default: on the API Gateway paths. */
  apiAccessLog?: boolean
  /** Whether Lambda writes its START/END/REPORT lines for the scan function. Default true. */
  scanPlatformLogs?: boolean
  /** Whether Lambda writes its START/END/REPORT lines for the API function (SystemLogLevel WARN drops them). */
  apiPlatformLogs?: boolean
  /** Target queues the jobs spread over (a SendMessageBatch goes to one queue). Default: all of `queues`. */
  queuesUsed?: number
  /** AZs the functions run in: the share of them away from the Redis primary pays cross-AZ transfer. Default 2. */
  azs?: number
  /** Days the log groups keep what they ingest (0: forever, priced as a year). Default 14. */
  logRetentionDays?: number
  /** With egress 'endpoints': the interface endpoints the template creates, by service. */
  vpcEndpoints?: string[]
}

export interface Line {
  item: string
  quantity: string
  usd: number
}

/** Assumptions that are not measurements (docs/cost.md "Assumptions"). */
export const ASSUMED = {
  /** ECPUs per job on ElastiCache Serverless: enqueue, its share of a claim and of an ack (1 ECPU per KB moved, with Lua's extra vCPU time). */
  ecpuPerJob: 3,
  /** A job that waits longer than the schedule's interval is taken by the scheduled run of the minute before it is due: on average half a minute early. */
  tickWaitS: 30,
  /** SQS message size on the wire (envelope + 200 B payload), for endpoint data charges. */
  messageBytes: 600,
  /**
   * Round trip between a Lambda and the Redis primary in the same Region, in ms (within an AZ ~0.2, across AZs ~0.5-1:
   * priced at 1). An enqueue is one round trip, and with a replica the WAIT for it is about two more.
   */
  redisRttMs: 1,
  /**
   * Bytes a job moves between the Lambdas and Redis besides its payload twice (in with the enqueue, out with the claim):
   * the commands, the record's fields, the ack and the replies. Replication to the replica is not billed as transfer.
   */
  redisBytesPerJobBesidesPayload: 700,
}

const ticksOf = (s: Pick<Scenario, 'ticksPerHour'>) => (s.ticksPerHour ?? 60) * HOURS_PER_MONTH

/** Lambda memory sizes the model picks from for the scan function (Lambda takes any size in 1 MB steps). */
export const SCAN_MEMORY_SIZES_MB = [128, 192, 224, 256, 384, 512, 768, 1024, 1769] as const
/**
 * The scan function's size for a workload: the smallest, from its floor (scanMemoryFloorMb), that
 *   - dispatches PEAK_FACTOR times the average job rate in a burst (jobs rarely fall due evenly), from the burst
 *     CPU per job (warm in continuous mode, fresh on demand: scanCapacityPerSec);
 *   - uses at most STREAM_CPU_SHARE of its CPU share for the average rate as a steady stream, from the measured
 *     steady-stream CPU per job. Lambda enforces the share as a quota per period: a stream close to it gets throttled
 *     and its jobs wait for the next period. `npm run bench:lambda-size` ran the packaged scan function in cgroups
 *     with Lambda's share and memory for each size, 38 jobs/s (100M a month), 100 ms quota period: p99 lateness
 *     137 ms at 256 MB (the stream used 68% of the share), 16 ms at 384 MB (43%), 12 ms at 512 MB (39%), 7 ms at
 *     768 MB (25%); an earlier run without the share measured gave 228 / 33 / 9 / 7 ms. With a 20 ms period it was
 *     worse (30 ms at 512 MB, 9 ms at 768 MB); Lambda's period is not published.
 */
export const PEAK_FACTOR = 20
/** The share a steady stream may use and keep p99 lateness near 10 ms (measured: see above). */
export const STREAM_CPU_SHARE = 0.4
/** The window from which a continuous scan may be as small as 128 MB: the window bench:lambda-size measured. */
export const SMALL_SCAN_WINDOW_MS = 1_000
/**
 * The smallest scan size the model considers, whatever the load:
 *   - on demand, 512 MB: every start pays the module load (0.4-0.5 s at 512 MB, 0.8-1.0 s at 256 MB, 1.9-3.0 s at
 *     128 MB, bench:lambda-size), and the job that started the scan waits for it;
 *   - continuous, 256 MB: a cold start no longer opens a gap (the older run scans until its successor has loaded,
 *     src/scan/run/relay.ts), but jobs due one by one need the share's headroom: at 128 MB p99 lateness was 56, 303 and
 *     153 ms at 1, 4 and 10 jobs/s, at 256 MB 7 to 86 ms, at 384 MB 6 to 7 ms;
 *   - continuous with a dispatch window of SMALL_SCAN_WINDOW_MS or more, 128 MB: jobs are held up to the window
 *     anyway, and the measured window held as well at 128 MB as at 512 MB (p99 398 ms against 377 ms with a 1 s
 *     window at 38 jobs/s).
 */
export function scanMemoryFloorMb(mode: ScanMode, windowMs = 0): number {
  if (mode === 'on-demand') return 512
  return windowMs >= SMALL_SCAN_WINDOW_MS ? 128 : 256
}
export function recommendedScanMemoryMb(
  s: Pick<Scenario, 'jobsPerMonth' | 'mode'> & Partial<Pick<Scenario, 'windowMs'>>,
  m: Measured,
): number {
  const ratePerSec = s.jobsPerMonth / (HOURS_PER_MONTH * 3600)
  const floor = scanMemoryFloorMb(s.mode, s.windowMs)
  const fits = SCAN_MEMORY_SIZES_MB.filter(
    (mb) =>
      mb >= floor &&
      scanCapacityPerSec(mb, m, s.mode) >= PEAK_FACTOR * ratePerSec &&
      streamCpuShare(mb, ratePerSec, m, s.windowMs ?? 0) <= STREAM_CPU_SHARE,
  )
  return fits[0] ?? SCAN_MEMORY_SIZES_MB[SCAN_MEMORY_SIZES_MB.length - 1]
}

export function scanMemoryOf(s: Scenario, m: Measured): number {
  return s.scanMemoryMb === 'auto' ? recommendedScanMemoryMb(s, m) : s.scanMemoryMb
}
const fmtInt = (n: number) => Math.round(n).toLocaleString('en-US')
const gbS = (seconds: number, mb: number) => (seconds * mb) / 1024

export function scanSeconds(s: Scenario, m: Measured): { seconds: number; starts: number; note: string } {
  const TICKS = ticksOf(s)
  const continuous = TICKS * m.continuousInvocationS
  if (s.mode === 'continuous')
    return { seconds: continuous, starts: 0, note: `${fmtInt(TICKS)} runs x ${m.continuousInvocationS.toFixed(1)} s` }
  const gapS = (HOURS_PER_MONTH * 3600) / Math.max(1, s.jobsPerMonth)
  // A job due within a minute of its enqueue starts a scan, which waits for it; a later one is taken by the scheduled
  // scan of the minute before it is due, which waits for it too. Then the measured dispatch, linger and exit.
  const waitS = s.waitHours * 3600
  const startedByEnqueue = waitS <= 60
  const perJobS = (startedByEnqueue ? waitS : ASSUMED.tickWaitS) + m.startedJobActiveS
  const starts = startedByEnqueue ? s.jobsPerMonth * Math.min(1, gapS / perJobS) : 0
  // Jobs closer together than one job's scan time share a scan: count at most the gap per job.
  const jobsS = s.jobsPerMonth * Math.min(perJobS, gapS)
  const seconds = Math.min(continuous, TICKS * m.emptyTickActiveS + jobsS)
  return {
    seconds,
    starts,
    note: `${fmtInt(TICKS)} ticks x ${(m.emptyTickActiveS * 1000).toFixed(1)} ms${s.jobsPerMonth ? ` + jobs x ${Math.min(perJobS, gapS).toFixed(2)} s, capped at continuous` : ''}`,
  }
}

/**
 * How full the model lets a node get: the scan's memory alarm warns above 80% of maxmemory
 * (REDIS_MEMORY_WARN_PERCENT), so a steady state must stay below it.
 */
const NODE_FILL = 0.8
/** The default DUE_BUCKETS: it keeps buckets compact up to ~1M pending jobs per shard (docs/cluster.md). */
const DEFAULT_DUE_BUCKETS = 16_384

/**
 * DUE_BUCKETS for this many pending jobs on one shard (the model's deployments have one: SHARDS=1): about 64 jobs
 * per bucket (docs/cluster.md), a power of two, never below the default. Past ~128 per bucket a bucket leaves
 * Redis's compact encoding: measured 430 bytes per job instead of 337 with 3.29M jobs in 16,384 buckets
 * (bench/memory-scale.ts).
 */
export function dueBucketsFor(pending: number): number {
  let buckets = DEFAULT_DUE_BUCKETS
  while (pending / buckets > 64) buckets *= 2
  return buckets
}

/**
 * Bytes per receipt at this many receipts an hour (one shard): the larger of the figures measured at the nearest
 * volumes below and above it. Not monotonic: an hour's receipts share 1,024 hashes, and past ~128 receipts in a hash
 * (131,072 an hour) Redis leaves the compact encoding, so 73.7 B at 100,000 an hour became 84.5 B at 500,000.
 */
export function receiptBytesAt(perHour: number, m: Measured): number {
  const rows = [...m.receiptBytes].sort((a, b) => a.perShardHour - b.perShardHour)
  if (rows.length === 0) throw new Error('no measured bytes per receipt (npm run bench:receipts)')
  const below = rows.filter((r) => r.perShardHour <= perHour).at(-1)
  const above = rows.find((r) => r.perShardHour >= perHour)
  return Math.max(below?.bytes ?? 0, above?.bytes ?? 0)
}

/**
 * Receipts held at any time: an hour's receipts share one hash that expires whole the TTL after its hour ends, so a
 * receipt stays the TTL plus half an hour on average.
 */
function receiptsHeld(s: Scenario): number {
  const ttlHours = s.receiptTtlHours ?? 24
  if (ttlHours === 0 || s.jobsPerMonth === 0) return 0
  return (s.jobsPerMonth / HOURS_PER_MONTH) * (ttlHours + 0.5)
}

function redisLines(s: Scenario, m: Measured, activeScanS: number): Line[] {
  const pending = (s.jobsPerMonth / (HOURS_PER_MONTH * 3600)) * s.waitHours * 3600
  const receipts = receiptsHeld(s)
  const bytes =
    pending * (m.bytesPerJob200 - 200 + s.payloadBytes) +
    (receipts && receipts * receiptBytesAt(s.jobsPerMonth / HOURS_PER_MONTH, m))
  const held = `${fmtInt(pending)} pending jobs${receipts ? `, ${fmtInt(receipts)} dispatch receipts` : ''}`
  const gb = bytes / 1e9
  const serverless = (): Line[] => {
    const stored = Math.max(0.1, gb)
    const ecpu = s.jobsPerMonth * ASSUMED.ecpuPerJob + m.idleRedisCommandsPerSec * activeScanS
    return [
      {
        item: 'Redis: ElastiCache Serverless Valkey storage (replicated across AZs)',
        quantity: `${stored.toFixed(3)} GB x ${HOURS_PER_MONTH} h (${held}${gb < 0.1 ? ', 100 MB minimum' : ''})`,
        usd: stored * HOURS_PER_MONTH * PRICES.valkeyServerlessGbHour.usd,
      },
      {
        item: 'Redis: ElastiCache Serverless Valkey ECPUs',
        quantity: `${fmtInt(ecpu)} ECPU`,
        usd: ecpu * PRICES.valkeyServerlessEcpu.usd,
      },
    ]
  }
  const node = (type?: string): Line[] | undefined => {
    const fits = VALKEY_NODES.filter((n) =>
      type ? n.type === type : n.memoryGiB * (1 - NODE_RESERVED_MEMORY) * 2 ** 30 * NODE_FILL >= bytes,
    )
    const n = fits[0]
    if (!n) return undefined
    const nodes = s.replica === false ? 1 : 2
    return [
      {
        item: `Redis: ${n.type} Valkey ${nodes === 2 ? 'primary + replica in another AZ' : 'node (one, no replica)'}`,
        quantity: `${nodes} x ${HOURS_PER_MONTH} h, ${(bytes / 2 ** 30).toFixed(2)} of ${(n.memoryGiB * (1 - NODE_RESERVED_MEMORY)).toFixed(2)} GiB usable (${held}, DUE_BUCKETS=${dueBucketsFor(pending)})`,
        usd: nodes * HOURS_PER_MONTH * n.hour.usd,
      },
    ]
  }
  if (s.redis === 'serverless') return serverless()
  if (s.redis === 'node') {
    const lines = node()
    if (!lines) throw new Error(`no node type in the price table holds ${(bytes / 2 ** 30).toFixed(2)} GiB`)
    return lines
  }
  if (s.redis !== 'auto') {
    const lines = node(s.redis)
    if (!lines) throw new Error(`unknown node type ${s.redis}: ${VALKEY_NODES.map((n) => n.type).join(', ')}`)
    return lines
  }
  const options = [serverless(), node()].filter((o): o is Line[] => Boolean(o))
  const total = (ls: Line[]) => ls.reduce((a, l) => a + l.usd, 0)
  return options.sort((a, b) => total(a) - total(b))[0]!
}

export function bill(s: Scenario, m: Measured): Line[] {
  const lines: Line[] = []
  const scan = scanSeconds(s, m)
  const TICKS = ticksOf(s)
  const invocations = s.mode === 'continuous' ? TICKS : TICKS + scan.starts
  const scanMb = scanMemoryOf(s, m)
  lines.push({
    item: `Scan Lambda compute (${s.mode}, ${scanMb} MB${s.scanMemoryMb === 'auto' ? ', recommended' : ''})`,
    quantity: `${fmtInt(scan.seconds)} s = ${fmtInt(gbS(scan.seconds, scanMb))} GB-s (${scan.note})`,
    usd: gbS(scan.seconds, scanMb) * PRICES.lambdaGbSecondArm.usd,
  })
  lines.push({
    item: 'Scan Lambda requests',
    quantity: `${fmtInt(invocations)} invocations`,
    usd: invocations * PRICES.lambdaRequest.usd,
  })
  lines.push({
    item: `EventBridge rule (${s.ticksPerHour ?? 60} a hour to Lambda)`,
    quantity: `${fmtInt(TICKS)} events (scheduled rules: no charge)`,
    usd: 0,
  })

  const requests = isBatch(s.enqueue) ? s.jobsPerMonth / 100 : s.enqueue === 'direct' ? 0 : s.jobsPerMonth
  let apiGbS = 0
  if (requests > 0) {
    const [wallMs, cpuMs] = isBatch(s.enqueue)
      ? [m.apiWallMsPerBatch100, m.apiCpuMsPerBatch100]
      : [m.apiWallMsPerRequest, m.apiCpuMsPerRequest]
    // Lambda bills whole milliseconds. The handler's CPU was measured on a full core: it stretches by the memory's
    // vCPU share; its waiting (the Redis round trips) does not.
    const share = vcpuShare(s.apiMemoryMb)
    const networkMs = ASSUMED.redisRttMs * (s.replica === false || s.redis === 'serverless' ? 1 : 3)
    const billedMs = Math.max(1, Math.ceil(cpuMs / share + Math.max(0, wallMs - cpuMs) + networkMs))
    if (s.enqueue === 'api' || s.enqueue === 'batch')
      lines.push({
        item: 'API Gateway HTTP API requests',
        quantity: `${fmtInt(requests)} requests`,
        usd: requests * PRICES.httpApiRequest.usd,
      })
    apiGbS = gbS((requests * billedMs) / 1000, s.apiMemoryMb)
    lines.push({
      item: `API Lambda (${s.apiMemoryMb} MB)`,
      quantity: `${fmtInt(requests)} requests x ${billedMs} ms billed (${(cpuMs / share).toFixed(1)} ms CPU at its share, ${networkMs} ms of Redis round trips${networkMs > ASSUMED.redisRttMs ? ' with the WAIT for the replica' : ''})`,
      usd:
        requests * PRICES.lambdaRequest.usd +
        gbS((requests * billedMs) / 1000, s.apiMemoryMb) * PRICES.lambdaGbSecondArm.usd,
    })
  }
  // A steady stream: without a window one request a job, with one ~1 + rate x window jobs a request, up to 10.
  const queuesUsed = Math.max(1, s.queuesUsed ?? s.queues ?? 3)
  const perRequest = jobsPerRequest(s.jobsPerMonth / (HOURS_PER_MONTH * 3600) / queuesUsed, s.windowMs)
  const sends = Math.ceil(s.jobsPerMonth / perRequest)
  lines.push({
    item: `SQS SendMessageBatch (${perRequest.toFixed(perRequest < 9.95 ? 1 : 0)} jobs each${s.windowMs ? `, ${s.windowMs} ms window, ${queuesUsed} queues` : ', no window'})`,
    quantity: `${fmtInt(sends)} requests`,
    usd: sends * PRICES.sqsRequest.usd,
  })
  lines.push(...redisLines(s, m, scan.seconds))
  lines.push(crossAzLine(s))
  lines.push(...egressLines({ ...s, messageBytes: ASSUMED.messageBytes }))
  const cloudWatch = cloudWatchLines(
    {
      jobsPerMonth: s.jobsPerMonth,
      waitHours: s.waitHours,
      queues: s.queues ?? 3,
      dashboard: s.dashboard !== false,
      scanInvocations: invocations,
      scanSeconds: scan.seconds,
      apiRequests: requests,
      apiAccessLog: s.apiAccessLog ?? (s.enqueue === 'api' || s.enqueue === 'batch'),
      apiPlatformLogs: s.apiPlatformLogs ?? true,
      scanPlatformLogs: s.scanPlatformLogs ?? true,
      alarms: s.alarms,
      retentionDays: s.logRetentionDays ?? 14,
    },
    m.observability,
  )
  lines.push(...cloudWatch.lines)
  if (s.freeTier) {
    const usage = {
      lambdaRequests: invocations + requests,
      lambdaGbSeconds: gbS(scan.seconds, scanMb) + apiGbS,
      sqsRequests: sends,
      ...cloudWatch.usage,
    }
    lines.push(freeTierLine(usage))
  }
  return lines
}

/**
 * Lambda <-> Redis traffic that crosses AZs: the functions run in `azs` AZs, the primary in one, so (azs - 1) / azs
 * of it. ElastiCache Serverless is reached through an endpoint in each subnet's own AZ: none.
 */
function crossAzLine(s: Scenario): Line {
  const azs = Math.max(1, s.azs ?? 2)
  const share = s.redis === 'serverless' ? 0 : (azs - 1) / azs
  const gb = (s.jobsPerMonth * (2 * s.payloadBytes + ASSUMED.redisBytesPerJobBesidesPayload)) / 1e9
  return {
    item: 'Cross-AZ transfer, Lambdas <-> Redis primary',
    quantity: `${gb.toFixed(1)} GB x ${(share * 100).toFixed(0)}% across AZs (${azs} AZs${s.redis === 'serverless' ? ', Serverless: an endpoint per AZ' : ''})`,
    usd: gb * share * PRICES.crossAzGb.usd,
  }
}

/** Jobs a second one scanner of this size dispatches in a burst: warm in continuous mode, fresh on demand. */
export function scanCapacityPerSec(memoryMb: number, m: Measured, mode: ScanMode): number {
  return (vcpuShare(memoryMb) * 1000) / (burstCpuMsPer1000(m, mode, memoryMb) / 1000)
}

/**
 * Burst CPU per 1,000 jobs at a size: linear between the two measured sizes around it, the nearest one's outside
 * them; the warm figures in continuous mode when measured; the single median without sized runs.
 */
export function burstCpuMsPer1000(m: Measured, mode: ScanMode, memoryMb: number): number {
  const sized = [...(m.scanBurstBySize ?? [])].sort((a, b) => a.memoryMb - b.memoryMb)
  const warm = sized.filter((p) => p.warmCpuMsPer1000 !== undefined)
  const points =
    mode === 'continuous' && warm.length
      ? warm.map((p) => [p.memoryMb, p.warmCpuMsPer1000!] as const)
      : sized.map((p) => [p.memoryMb, p.freshCpuMsPer1000] as const)
  if (points.length === 0) return m.scanCpuMsPer1000Jobs
  const above = points.findIndex(([mb]) => mb >= memoryMb)
  if (above === 0) return points[0]![1]
  if (above === -1) return points[points.length - 1]![1]
  const [[mb0, cpu0], [mb1, cpu1]] = [points[above - 1]!, points[above]!]
  return cpu0 + ((cpu1 - cpu0) * (memoryMb - mb0)) / (mb1 - mb0)
}
