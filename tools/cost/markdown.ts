// The report as docs/cost.md and the README show it: every figure there is one of these outputs, pasted between
// `<!-- cost: ARGS -->` and `<!-- /cost -->` by `npm run cost:docs`, and test/cost/docs-figures.test.ts fails when
// one differs from what `npm run cost -- ARGS` prints now.
import { CONSUMER_ASSUMED } from './consumer'
import { ASSUMED } from './model'
import { type CostReport, DEFAULT_USAGE, type Usage } from './report'

export const usd = (n: number): string =>
  n < 0 ? `-${usd(-n)}` : n < 0.01 && n > 0 ? `$${n.toFixed(4)}` : `$${n.toFixed(2)}`
const millions = (n: number) => `${(n / 1e6).toLocaleString('en-US', { maximumFractionDigits: 2 })}M`
const sum = (lines: { usd: number }[]) => lines.reduce((a, l) => a + l.usd, 0)

export type Report = CostReport & { params: string[] }

/** The command that reproduces a report (`npm run cost -- ...`), as the docs quote it. */
export function commandOf(params: string[], extra: string[] = []): string {
  const args = [...params.map((p) => `--param ${p}`), ...extra]
  return `npm run cost${args.length ? ` -- ${args.join(' ')}` : ''}`
}

/** The usage flags a report was priced with, where they differ from the defaults (jobs a month aside). */
function usageArgs(u: Usage): string[] {
  const flags: [keyof Usage, string][] = [
    ['enqueue', 'enqueue'],
    ['payloadBytes', 'payload-bytes'],
    ['waitHours', 'wait-hours'],
    ['queuesUsed', 'queues-used'],
    ['redis', 'redis'],
    ['replica', 'replica'],
    ['azs', 'azs'],
  ]
  return flags.flatMap(([key, flag]) =>
    u[key] !== undefined && u[key] !== DEFAULT_USAGE[key] ? [`--${flag} ${u[key]}`] : [],
  )
}

function table(rows: { item: string; usd: number; quantity: string }[]): string[] {
  return [
    '| line | USD a month | quantity |',
    '|---|---:|---|',
    ...rows.map((l) => `| ${l.item} | ${usd(l.usd)} | ${l.quantity.replace(/\|/g, '/')} |`),
  ]
}

/** One sentence: the default template's figures (the README's cost line). */
export function headline(r: Report): string {
  const cheapest = [...r.redisOptions.slice(0, 2)].sort((a, b) => a.usdPerMonth - b.usdPerMonth)[0]!
  const serverless = r.redisOptions[1]!
  return (
    `**${usd(r.idleWithoutRedisUsdPerMonth)} a month idle** without Redis and **${usd(r.perExtraMillionJobsUsd)} per ` +
    `extra million jobs** all-in at ${millions(r.usage.jobsPerMonth)} jobs a month (logs included; ` +
    `${usd(r.perExtraMillionJobsWithConsumerUsd)} with the consumer side of its ${r.decided.consumers.length} SQS-triggered ` +
    `function${r.decided.consumers.length === 1 ? '' : 's'}), plus Redis: ` +
    `${usd(r.redisUsdPerMonth)} a month at that volume (${cheapest.option}), ${usd(serverless.idleUsdPerMonth)} idle on ` +
    `ElastiCache Serverless (\`${commandOf(r.params)}\`, prices ${r.prices})`
  )
}

/** The whole bill: what the template decided, the month at the usage, the consumer side, idle, the summary. */
export function billMarkdown(r: Report): string {
  const d = r.decided
  const u = r.usage
  return [
    `\`${commandOf(r.params)}\`: ${d.api.frontDoor === 'functionUrl' ? 'a Function URL' : 'an HTTP API'} front door, ` +
      `${d.scan.mode === 'on-demand' ? 'an' : 'a'} ${d.scan.mode} scan of ${d.scan.memoryMb} MB (${d.scan.ticksPerHour} ticks an hour, dispatch window ` +
      `${d.scan.dispatchWindowMs} ms), ${d.targetQueues} target queues, ${d.alarms} alarms, ${d.dashboards} ` +
      `dashboard(s), logs kept ${[...new Set(d.logGroups.map((g) => g.retentionDays))].join('/')} days, egress ` +
      `${d.egress}; ${u.jobsPerMonth.toLocaleString('en-US')} jobs a month waiting ${u.waitHours} h, ${u.payloadBytes} B ` +
      `payloads, spread over ${u.queuesUsed ?? d.targetQueues} queues, one request a job.`,
    '',
    `At ${millions(u.jobsPerMonth)} jobs a month:`,
    '',
    ...table(r.bill),
    '',
    `The consumer side (${r.decided.consumers.map((c) => c.logicalId.replace(/LambdaFunction$/, '')).join(', ')}: the template's SQS-triggered functions, around their own work):`,
    '',
    ...table(r.consumer.lines),
    '',
    'Idle (nothing scheduled):',
    '',
    ...table(r.idleBill),
    '',
    '| summary | USD |',
    '|---|---:|',
    `| idle without Redis, a month (consumer polling included) | ${usd(r.idleWithoutRedisUsdPerMonth)} |`,
    `| per extra million jobs, all-in without Redis | ${usd(r.perExtraMillionJobsUsd)} |`,
    `| the same with the consumer side | ${usd(r.perExtraMillionJobsWithConsumerUsd)} |`,
    ...r.redisOptions.map(
      (o) =>
        `| Redis at ${millions(u.jobsPerMonth)}: ${o.option} / idle: ${o.idleOption} | ${usd(o.usdPerMonth)} / ${usd(o.idleUsdPerMonth)} |`,
    ),
    `| total at ${millions(u.jobsPerMonth)} jobs a month, cheapest Redis, consumer side included | ${usd(r.totalUsdPerMonth)} |`,
  ].join('\n')
}

/** Ours (this template, Redis included, consumer side excluded) against the peers at each volume. */
export function compareMarkdown(rows: { jobs: number; report: Report }[]): string {
  const cell = (v: number, jobs: number) => `${usd(v)} (${usd((v / jobs) * 1e6)}/M)`
  const first = rows[0]!.report
  const ours = (r: Report) => r.totalUsdPerMonth - sum(r.consumer.lines)
  return [
    `\`${commandOf(first.params, [...usageArgs(first.usage), '--compare'])}\`, jobs waiting ${first.usage.waitHours} h:`,
    '',
    `| system (jobs a month) | ${rows.map((c) => millions(c.jobs)).join(' | ')} | ours cheaper above |`,
    `|---|${rows.map(() => '---:').join('|')}|---:|`,
    `| ours (this template, cheapest replicated Redis) | ${rows.map((c) => cell(ours(c.report), c.jobs)).join(' | ')} | |`,
    ...first.peers.map((p) => {
      const last = rows.at(-1)!.report.peers.find((q) => q.system === p.system)!
      const at = last.oursCheaperAboveJobsPerMonth
      return `| ${p.system} | ${rows.map((c) => cell(c.report.peers.find((q) => q.system === p.system)!.usdPerMonth, c.jobs)).join(' | ')} | ${at === null ? 'never (10K-10B)' : millions(at)} |`
    }),
  ].join('\n')
}

/** One row per configuration: its command and its four headline figures. */
export function configurationsMarkdown(reports: Report[]): string {
  return [
    `| configuration | idle without Redis | per extra million jobs | with the consumer side | Redis at ${millions(reports[0]!.usage.jobsPerMonth)} |`,
    '|---|---:|---:|---:|---:|',
    ...reports.map(
      (r) =>
        `| \`${commandOf(r.params)}\` | ${usd(r.idleWithoutRedisUsdPerMonth)} | ${usd(r.perExtraMillionJobsUsd)} | ${usd(r.perExtraMillionJobsWithConsumerUsd)} | ${usd(r.redisUsdPerMonth)} |`,
    ),
  ].join('\n')
}

/** What the model assumes rather than measures or reads (tools/cost/model.ts ASSUMED, tools/cost/consumer.ts). */
export function assumptionsMarkdown(): string {
  const rows: [string, number | string, string][] = [
    [
      'ASSUMED.redisRttMs',
      ASSUMED.redisRttMs,
      'ms a round trip Lambda <-> Redis; an enqueue is 1, with the WAIT for a replica 3',
    ],
    [
      'ASSUMED.redisBytesPerJobBesidesPayload',
      ASSUMED.redisBytesPerJobBesidesPayload,
      'bytes a job moves Lambda <-> Redis besides its payload twice (cross-AZ line)',
    ],
    ['ASSUMED.ecpuPerJob', ASSUMED.ecpuPerJob, 'ECPUs a job costs on ElastiCache Serverless (enqueue, claim, ack)'],
    ['ASSUMED.tickWaitS', ASSUMED.tickWaitS, 's an on-demand scan waits for a job due over a minute after its enqueue'],
    ['ASSUMED.messageBytes', ASSUMED.messageBytes, 'bytes of an SQS message on the wire (endpoint per-GB charges)'],
    [
      'CONSUMER_ASSUMED.idlePollers',
      CONSUMER_ASSUMED.idlePollers,
      'pollers of an SQS event source mapping on an empty queue, each a 20 s long poll',
    ],
    [
      'CONSUMER_ASSUMED.toolkitMsPerInvocation',
      CONSUMER_ASSUMED.toolkitMsPerInvocation,
      'billed ms of a consumer invocation whose business code does nothing',
    ],
  ]
  return [
    '| assumption | value | meaning |',
    '|---|---:|---|',
    ...rows.map(([n, v, m]) => `| \`${n}\` | ${v} | ${m} |`),
  ].join('\n')
}
