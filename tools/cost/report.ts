// The priced template: the facts a packaged CloudFormation template decides (tools/cost/template.ts) and the usage
// the flags give, through the model (tools/cost/model.ts) into one report: the month's bill at the usage, the idle
// month, the cost of each extra million jobs, Redis (the cheapest replicated option, and ElastiCache Serverless),
// the consumer side as its own block, and the peers at the same usage. `npm run cost` prints it, `--json` as is.
import { type ConsumerLine, consumerLines, EXAMPLE_CONSUMER_HANDLER } from './consumer'
import { bill, type EnqueuePath, type Line, type Measured, recommendedScanMemoryMb, type Scenario } from './model'
import { alternatives, crossover } from './peers'
import { PRICES_DATE } from './prices'
import type { TemplateFacts } from './template'

export interface Usage {
  jobsPerMonth: number
  /** How clients enqueue: one request a job, POST /jobs/batch of 100, or the DelayQueue class straight to Redis. */
  enqueue: 'single' | 'batch' | 'direct'
  payloadBytes: number
  /** Average time from enqueue to due. */
  waitHours: number
  /** Target queues the jobs spread over; default: every target queue of the template. */
  queuesUsed?: number
  /** `auto`: the cheaper of ElastiCache Serverless and the smallest node (with a replica unless `replica` is false). */
  redis: string
  replica: boolean
  /** AZs the functions' subnets span (endpoints are billed per AZ; cross-AZ traffic to the Redis primary). */
  azs: number
  freeTier: boolean
}

export const DEFAULT_USAGE: Usage = {
  jobsPerMonth: 100_000_000,
  enqueue: 'single',
  payloadBytes: 200,
  waitHours: 24,
  redis: 'auto',
  replica: true,
  azs: 2,
  freeTier: false,
}

const sum = (lines: { usd: number }[]) => lines.reduce((a, l) => a + l.usd, 0)
const isRedis = (l: Line) => l.item.startsWith('Redis:')
const round = (n: number, digits = 4) => Math.round(n * 10 ** digits) / 10 ** digits

/** The model's scenario for this template at `jobs` a month. */
export function scenarioOf(t: TemplateFacts, u: Usage, jobs: number, redis = u.redis): Scenario {
  const paths: Record<Usage['enqueue'], Record<TemplateFacts['api']['frontDoor'], EnqueuePath>> = {
    single: { httpApi: 'api', functionUrl: 'function-url' },
    batch: { httpApi: 'batch', functionUrl: 'function-url-batch' },
    direct: { httpApi: 'direct', functionUrl: 'direct' },
  }
  const retention = Math.max(0, ...t.logGroups.map((g) => g.retentionDays || 365))
  return {
    jobsPerMonth: jobs,
    enqueue: paths[u.enqueue][t.api.frontDoor],
    mode: t.scan.mode,
    scanMemoryMb: t.scan.memoryMb,
    apiMemoryMb: t.api.memoryMb,
    payloadBytes: u.payloadBytes,
    waitHours: u.waitHours,
    receiptTtlHours: t.scan.receiptTtlHours,
    windowMs: t.scan.windowMs,
    redis,
    egress: t.egress,
    endpointAzs: u.azs,
    queues: t.targetQueues,
    queuesUsed: u.queuesUsed ?? t.targetQueues,
    replica: u.replica,
    dashboard: t.dashboards > 0,
    freeTier: u.freeTier,
    ticksPerHour: t.scan.ticksPerHour,
    alarms: t.alarms,
    apiAccessLog: t.api.frontDoor === 'httpApi' && t.api.accessLog,
    apiPlatformLogs: t.api.platformLogs,
    scanPlatformLogs: t.scan.platformLogs,
    azs: u.azs,
    logRetentionDays: retention === 365 ? 0 : retention,
    ...(t.egress === 'endpoints' ? { vpcEndpoints: t.vpcEndpoints } : {}),
  }
}

/** Log bytes a job costs a consumer: the toolkit's line, and the example's own where it is the example. */
export interface ConsumerLogBytes {
  toolkit: number
  example: number
}

function consumerBlock(t: TemplateFacts, u: Usage, jobs: number, log: ConsumerLogBytes): ConsumerLine[] {
  return t.consumers.flatMap(
    (c) =>
      consumerLines(
        { ...c, logBytesPerJob: log.toolkit + (c.handler === EXAMPLE_CONSUMER_HANDLER ? log.example : 0) },
        {
          jobsPerMonth: jobs,
          queuesUsed: u.queuesUsed ?? t.targetQueues,
          retentionDays:
            t.logGroups.find((g) => g.logicalId.startsWith(c.logicalId.replace(/LambdaFunction$/, '')))
              ?.retentionDays ?? 14,
        },
      ).lines,
  )
}

export function priceTemplate(t: TemplateFacts, u: Usage, m: Measured, consumerLogBytesPerJob: ConsumerLogBytes) {
  const jobs = u.jobsPerMonth
  if (jobs <= 0) throw new Error('--jobs-per-month must be above 0 (the idle month is priced anyway)')
  const atUsage = bill(scenarioOf(t, u, jobs), m)
  const idle = bill(scenarioOf(t, u, 0), m)
  const redisAt = (lines: Line[]) => sum(lines.filter(isRedis))
  const delivery = (lines: Line[]) => sum(lines) - redisAt(lines)
  const consumer = consumerBlock(t, u, jobs, consumerLogBytesPerJob)
  const consumerIdle = consumerBlock(t, u, 0, consumerLogBytesPerJob)
  const millions = jobs / 1e6
  const perMillion = (delivery(atUsage) - delivery(idle)) / millions
  const consumerPerMillion = (sum(consumer) - sum(consumerIdle)) / millions
  /** One Redis option at the usage and idle: the smallest node that fits (with or without a replica), or Serverless. */
  const redisOption = (redis: 'node' | 'serverless', replica: boolean) => {
    const at = (n: number) => bill(scenarioOf(t, { ...u, replica }, n, redis), m).filter(isRedis)
    const [busy, quiet] = [at(jobs), at(0)]
    const name = (lines: Line[]) => lines.map((l) => l.item.replace(/^Redis: /, '')).join(' + ')
    return {
      option: name(busy),
      usdPerMonth: round(sum(busy), 2),
      idleOption: name(quiet),
      idleUsdPerMonth: round(sum(quiet), 2),
    }
  }
  const total = sum(atUsage) + sum(consumer)
  const ours = (n: number) => sum(bill(scenarioOf(t, u, n), m))
  return {
    template: t.file,
    prices: PRICES_DATE,
    decided: {
      scan: {
        mode: t.scan.mode,
        memoryMb: t.scan.memoryMb,
        timeoutS: t.scan.timeoutS,
        ticksPerHour: t.scan.ticksPerHour,
        dispatchWindowMs: t.scan.windowMs,
        receiptTtlHours: t.scan.receiptTtlHours,
        recommendedMemoryMbAtUsage: recommendedScanMemoryMb(
          { jobsPerMonth: jobs, mode: t.scan.mode, windowMs: t.scan.windowMs },
          m,
        ),
      },
      api: {
        frontDoor: t.api.frontDoor,
        memoryMb: t.api.memoryMb,
        accessLog: t.api.accessLog,
        platformLogs: t.api.platformLogs,
      },
      consumers: t.consumers,
      targetQueues: t.targetQueues,
      deadLetterQueues: t.deadLetterQueues,
      alarms: t.alarms,
      dashboards: t.dashboards,
      logGroups: t.logGroups,
      egress: t.egress,
      vpcEndpoints: t.vpcEndpoints,
    },
    usage: u,
    idleWithoutRedisUsdPerMonth: round(delivery(idle) + sum(consumerIdle), 2),
    redisUsdPerMonth: round(redisAt(atUsage), 2),
    redisIdleUsdPerMonth: round(redisAt(idle), 2),
    perExtraMillionJobsUsd: round(perMillion, 3),
    perExtraMillionJobsWithConsumerUsd: round(perMillion + consumerPerMillion, 3),
    totalUsdPerMonth: round(total, 2),
    redisOptions: [redisOption('node', true), redisOption('serverless', true), redisOption('node', false)],
    bill: atUsage.map((l) => ({ ...l, usd: round(l.usd) })),
    idleBill: idle.map((l) => ({ ...l, usd: round(l.usd) })),
    consumer: {
      idleUsdPerMonth: round(sum(consumerIdle), 2),
      perExtraMillionJobsUsd: round(consumerPerMillion, 3),
      lines: consumer.map((l) => ({ ...l, usd: round(l.usd) })),
    },
    peers: alternatives(jobs, { waitHours: u.waitHours }).map((p) => {
      const at = crossover(
        ours,
        (n) => alternatives(n, { waitHours: u.waitHours }).find((a) => a.system === p.system)!.usd,
      )
      return {
        system: p.system,
        usdPerMonth: round(p.usd, 2),
        perMillionUsd: round((p.usd / jobs) * 1e6, 3),
        oursCheaperAboveJobsPerMonth: at === null ? null : Math.round(at),
        how: p.how,
      }
    }),
  }
}

export type CostReport = ReturnType<typeof priceTemplate>
