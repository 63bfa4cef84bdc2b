// `npm run cost -- --compare`: the table of docs/cost.md (every enqueue path and mode against EventBridge Scheduler,
// QStash, Google Cloud Tasks and Step Functions at 1M, 10M and 100M jobs a month), the idle floor by egress, the
// 100M figures with and without a Redis replica, and the volumes where ours becomes cheaper than each peer.
import { alternatives, bill, type Egress, type Scenario, type Measured } from './model'
import { crossover } from './peers'

const usd = (n: number) => (n < 0.01 && n > 0 ? `$${n.toFixed(4)}` : `$${n.toFixed(2)}`)
/** The dispatch window of the table's windowed rows: jobs up to 1 s late, 10 a request from ~10 jobs/s. */
const COMPARE_WINDOW_MS = 1_000
const fmtJobs = (n: number) => (n >= 1e6 ? `${(n / 1e6).toPrecision(3)}M` : `${Math.round(n / 1e3)}K`)

export function compare(base: Scenario, m: Measured) {
  const volumes = [1e6, 10e6, 100e6]
  const total = (s: Scenario) => bill(s, m).reduce((a, l) => a + l.usd, 0)
  const row = (label: string, usds: number[]) =>
    console.log(`| ${label} | ${usds.map((c, i) => `${usd(c)} (${usd((c / volumes[i]!) * 1e6)}/M)`).join(' | ')} |`)
  const redis = base.replica === false ? 'Redis without a replica' : 'Redis with a replica (or Serverless)'
  console.log(
    `\njobs wait ${base.waitHours} h on average unless a row says otherwise; payload ${base.payloadBytes} B; scan memory ${base.scanMemoryMb === 'auto' ? 'as recommended for each volume' : `${base.scanMemoryMb} MB`}; SQS and Lambda reached ${base.egress === 'ipv6' ? 'over IPv6 (egress-only internet gateway)' : `through ${base.egress === 'nat' ? 'NAT gateways' : 'interface endpoints'} in ${base.endpointAzs} AZ`}; ${base.queues ?? 3} queues; ${redis}; CloudWatch metrics, alarms${base.dashboard === false ? '' : ', dashboard'} and logs included; ${base.freeTier ? 'free tier applied' : 'no free tier'}`,
  )
  console.log(`\n| system (jobs a month) | ${volumes.map((v) => `${v / 1e6}M`).join(' | ')} |`)
  console.log(`|---|${volumes.map(() => '---:').join('|')}|`)
  for (const mode of ['continuous', 'on-demand'] as const) {
    for (const enqueue of ['api', 'function-url', 'batch', 'direct'] as const) {
      row(
        `ours, ${mode}, ${enqueue}`,
        volumes.map((v) => total({ ...base, jobsPerMonth: v, mode, enqueue })),
      )
    }
  }
  const windowed = (v: number, enqueue: Scenario['enqueue'], extra: Partial<Scenario> = {}) =>
    total({ ...base, jobsPerMonth: v, mode: 'continuous', enqueue, windowMs: COMPARE_WINDOW_MS, ...extra })
  for (const enqueue of ['function-url', 'batch', 'function-url-batch', 'direct'] as const)
    row(
      `ours, continuous, ${enqueue}, ${COMPARE_WINDOW_MS / 1000} s dispatch window`,
      volumes.map((v) => windowed(v, enqueue)),
    )
  row(
    'ours, on-demand, function-url, jobs due 5 s after enqueue',
    volumes.map((v) =>
      total({ ...base, jobsPerMonth: v, mode: 'on-demand', enqueue: 'function-url', waitHours: 5 / 3600 }),
    ),
  )
  for (const alt of alternatives(1).map((a) => a.system))
    row(
      alt,
      volumes.map((v) => alternatives(v).find((a) => a.system === alt)!.usd),
    )

  const idle = (egress: Egress, extra: Partial<Scenario> = {}) =>
    total({ ...base, jobsPerMonth: 0, mode: 'on-demand', enqueue: 'direct', egress, ...extra })
  const azs = base.endpointAzs
  console.log(
    `\nnothing scheduled, on-demand, ${base.queues ?? 3} queues, all CloudWatch items: ${usd(idle('ipv6'))} a month over IPv6 (${usd(idle('ipv6', { dashboard: false }))} without the dashboard, ${usd(idle('ipv6', { freeTier: true }))} with the free tier); ${usd(idle('endpoints'))} with interface endpoints in ${azs} AZ; ${usd(idle('nat'))} with NAT gateways in ${azs} AZ`,
  )
  const perM = (c: number) => usd((c / 100e6) * 1e6)
  const at100 = (enqueue: Scenario['enqueue'], extra: Partial<Scenario>) =>
    perM(windowed(100e6, enqueue, { egress: 'ipv6', ...extra }))
  for (const enqueue of ['direct', 'batch'] as const)
    console.log(
      `100M jobs a month, a day's wait, ${COMPARE_WINDOW_MS / 1000} s window, ${enqueue}, IPv6: ${at100(enqueue, { replica: true })} per million with a replica (Redis on auto), ${at100(enqueue, { redis: 'serverless' })} on ElastiCache Serverless, ${at100(enqueue, { replica: false })} without a replica`,
    )
  for (const alt of alternatives(1).map((a) => a.system)) {
    const peer = (v: number) => alternatives(v).find((a) => a.system === alt)!.usd
    const at = crossover((v) => windowed(v, 'batch'), peer)
    console.log(
      `crossover with ${alt}: ${at === null ? 'none between 10K and 10B jobs a month' : `ours (continuous, batch, ${COMPARE_WINDOW_MS / 1000} s window, as above) is cheaper above ${fmtJobs(at)} jobs a month`}`,
    )
  }
}
