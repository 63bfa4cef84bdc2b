// `npm run cost`: the monthly bill of a packaged CloudFormation template. Without --template it packages the service
// offline (`serverless package --stage prod`, with any --param given) and reads what that wrote; everything the
// template decides (functions, memory, schedule, scan mode, front door, queues, alarms, dashboards, log groups,
// endpoints) comes from it, and only usage from the flags. The figures per job and per invocation come from
// bench/results.json, the prices from tools/cost/prices.ts. `--json` prints the report as one JSON object.
import { relative, resolve } from 'node:path'
import { consumerLogBytesPerJob } from './consumer'
import { accessLogBytes } from './metrics'
import { packageTemplate } from './package'
import { PRICES, PRICES_DATE, VALKEY_NODES, type Price } from './prices'
import { measured } from './read-measured'
import { CONFIGURATIONS } from './configurations'
import {
  assumptionsMarkdown,
  billMarkdown,
  compareMarkdown,
  configurationsMarkdown,
  headline,
  type Report,
  usd,
} from './markdown'
import { DEFAULT_USAGE, priceTemplate, type Usage } from './report'
import { readTemplate, type TemplateFacts } from './template'

const USAGE = `usage: npm run cost -- [--template FILE | --param NAME=VALUE ... [--config FILE]]
  [--json | --markdown | --headline | --compare | --configurations | --prices | --assumptions]
  [--jobs-per-month N] [--enqueue single|batch|direct] [--payload-bytes B] [--wait-hours H] [--queues-used N]
  [--redis auto|serverless|<node type>] [--replica true|false] [--azs N] [--free-tier]`
class UsageError extends Error {}

const OUTPUTS = ['json', 'markdown', 'headline', 'compare', 'configurations', 'prices', 'assumptions'] as const
type Output = (typeof OUTPUTS)[number] | 'text'

interface Options {
  usage: Usage
  template?: string
  /** Another serverless.yml in the service folder to package (osls --config). */
  config?: string
  params: string[]
  output: Output
}

const FLAGS = new Set<string>([...OUTPUTS, 'free-tier'])

export function parseArgs(argv: string[]): Options {
  const args = new Map<string, string>()
  const params: string[] = []
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!
    if (a === '--help' || a === '-h') throw new UsageError('')
    if (!a.startsWith('--')) throw new UsageError(`unexpected argument ${a}`)
    const [name, inline] = a.slice(2).split(/=(.*)/s, 2) as [string, string | undefined]
    const value = FLAGS.has(name) ? 'true' : (inline ?? argv[++i] ?? '')
    if (name === 'param') {
      if (!/^[A-Za-z]\w*=/.test(value)) throw new UsageError(`--param takes NAME=VALUE, got "${value}"`)
      params.push(value)
    } else args.set(name, value)
  }
  // Every option read below is noted: one left unread is one the tool does not know, and would be ignored.
  const read = new Set<string>()
  const get = (name: string) => {
    read.add(name)
    return args.get(name)
  }
  const num = (name: string, fallback: number) => {
    const raw = get(name)
    if (raw === undefined) return fallback
    const n = Number(raw.replace(/_/g, ''))
    if (!Number.isFinite(n) || n < 0) throw new UsageError(`--${name} must be a number >= 0, got "${raw}"`)
    return n
  }
  const oneOf = <T extends string>(name: string, values: readonly T[], fallback: T): T => {
    const v = (get(name) ?? fallback) as T
    if (!values.includes(v)) throw new UsageError(`--${name} must be one of ${values.join(', ')}, got "${v}"`)
    return v
  }
  const queuesUsed = get('queues-used')
  const options: Options = {
    usage: {
      jobsPerMonth: num('jobs-per-month', DEFAULT_USAGE.jobsPerMonth),
      enqueue: oneOf('enqueue', ['single', 'batch', 'direct'] as const, DEFAULT_USAGE.enqueue),
      payloadBytes: num('payload-bytes', DEFAULT_USAGE.payloadBytes),
      waitHours: num('wait-hours', DEFAULT_USAGE.waitHours),
      ...(queuesUsed === undefined ? {} : { queuesUsed: num('queues-used', 1) }),
      redis: get('redis') ?? DEFAULT_USAGE.redis,
      replica: oneOf('replica', ['true', 'false'], 'true') === 'true',
      azs: num('azs', DEFAULT_USAGE.azs),
      freeTier: get('free-tier') !== undefined,
    },
    template: get('template'),
    config: get('config'),
    params,
    output: 'text',
  }
  const outputs = OUTPUTS.filter((o) => get(o) !== undefined)
  if (outputs.length > 1) throw new UsageError(`one output at a time: ${outputs.map((o) => `--${o}`).join(', ')}`)
  options.output = outputs[0] ?? 'text'
  const unknown = [...args.keys()].find((name) => !read.has(name))
  if (unknown) throw new UsageError(`unknown option --${unknown}`)
  if (options.template && (params.length || options.config))
    throw new UsageError('--param and --config package the service: not with --template')
  if (options.usage.jobsPerMonth === 0) throw new UsageError('--jobs-per-month must be above 0 (idle is priced too)')
  return options
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
  for (const [price, unit, source, unverified] of rows)
    console.log(`| ${unit}${unverified ? ' †' : ''} | ${price} | ${source} |`)
}

function printLines(lines: { item: string; usd: number; quantity: string }[]) {
  const width = Math.max(...lines.map((l) => l.item.length))
  for (const l of lines) console.log(`  ${l.item.padEnd(width)}  ${usd(l.usd).padStart(9)}   ${l.quantity}`)
}

function printReport(r: Report) {
  const d = r.decided
  const u = r.usage
  console.log(
    `template: ${r.template}${r.params.length ? ` (packaged with --param ${r.params.join(' --param ')})` : ''} (prices ${r.prices})`,
  )
  console.log(
    `  decided by it: scan ${d.scan.mode}, ${d.scan.memoryMb} MB, ${d.scan.ticksPerHour} ticks an hour, dispatch window ${d.scan.dispatchWindowMs} ms, receipts ${d.scan.receiptTtlHours} h; API through ${d.api.frontDoor === 'functionUrl' ? 'a Function URL' : 'an HTTP API'} (${d.api.memoryMb} MB${d.api.platformLogs ? '' : ', no START/END/REPORT lines'}); ${d.targetQueues} target queues, ${d.deadLetterQueues} DLQs, ${d.consumers.length} SQS consumer(s); ${d.alarms} alarms, ${d.dashboards} dashboard(s), ${d.logGroups.length} log groups (${[...new Set(d.logGroups.map((g) => g.retentionDays))].join('/')} days); egress ${d.egress}${d.vpcEndpoints.length ? ` (${d.vpcEndpoints.join(', ')} endpoints)` : ''}`,
  )
  console.log(
    `  usage (flags): ${u.jobsPerMonth.toLocaleString('en-US')} jobs a month, enqueue ${u.enqueue}, payload ${u.payloadBytes} B, wait ${u.waitHours} h, ${u.queuesUsed ?? d.targetQueues} queues used, Redis ${u.redis}${u.replica ? ' with a replica' : ' without a replica'}, ${u.azs} AZs${u.freeTier ? ', free tier applied' : ', no free tier'}`,
  )
  console.log(`\nthe month at ${u.jobsPerMonth.toLocaleString('en-US')} jobs:`)
  printLines(r.bill)
  console.log(`\nthe consumer side (the template's SQS-triggered functions, around the business code):`)
  printLines(r.consumer.lines)
  console.log(`\nidle (nothing scheduled):`)
  printLines(r.idleBill)
  console.log(`
idle without Redis:            ${usd(r.idleWithoutRedisUsdPerMonth)} a month (consumer polling included)
Redis:                         ${usd(r.redisUsdPerMonth)} a month at this usage, ${usd(r.redisIdleUsdPerMonth)} idle (${r.redisOptions.map((o) => `${o.option}: ${usd(o.usdPerMonth)}`).join('; ')})
per extra million jobs:        ${usd(r.perExtraMillionJobsUsd)} all-in without Redis, logs included (${usd(r.perExtraMillionJobsWithConsumerUsd)} with the consumer side)
total at this usage:           ${usd(r.totalUsdPerMonth)} a month, consumer side included`)
  if (d.scan.recommendedMemoryMbAtUsage > d.scan.memoryMb)
    console.log(
      `note: at this volume the model recommends a scan of ${d.scan.recommendedMemoryMbAtUsage} MB to keep p99 lateness near 10 ms (--param scanMemory=${d.scan.recommendedMemoryMbAtUsage})`,
    )
  console.log(`\nthe peers at the same usage:`)
  for (const p of r.peers)
    console.log(
      `  ${p.system.padEnd(44)} ${usd(p.usdPerMonth).padStart(10)}  (${usd(p.perMillionUsd)}/M; ours cheaper ${p.oursCheaperAboveJobsPerMonth === null ? 'nowhere between 10K and 10B' : `above ${(p.oursCheaperAboveJobsPerMonth / 1e6).toPrecision(3)}M`} jobs a month)  ${p.how}`,
    )
}

async function factsOf(o: Options, params: string[]): Promise<TemplateFacts> {
  const root = process.cwd()
  const file = o.template ? resolve(o.template) : await packageTemplate(root, params, o.config)
  return { ...readTemplate(file), file: relative(root, file) }
}

async function reportOf(facts: TemplateFacts, params: string[], usage: Usage): Promise<Report> {
  const m = await measured()
  // The access log line in the template's own format, when it has one.
  const format = facts.api.accessLogFormat
  const observability = format
    ? { ...m.observability, accessLogBytes: accessLogBytes(undefined, format) }
    : m.observability
  return { ...priceTemplate(facts, usage, { ...m, observability }, await consumerLogBytesPerJob()), params }
}

async function main() {
  const o = parseArgs(process.argv.slice(2))
  if (o.output === 'prices') return printPrices()
  if (o.output === 'assumptions') return console.log(assumptionsMarkdown())
  if (o.output === 'configurations') {
    const reports: Report[] = []
    for (const configuration of CONFIGURATIONS) {
      const params = [...configuration, ...o.params]
      reports.push(await reportOf(await factsOf(o, params), params, o.usage))
    }
    return console.log(configurationsMarkdown(reports))
  }
  const facts = await factsOf(o, o.params)
  const report = await reportOf(facts, o.params, o.usage)
  if (o.output === 'json') return console.log(JSON.stringify(report, null, 2))
  if (o.output === 'headline') return console.log(headline(report))
  if (o.output === 'markdown') return console.log(billMarkdown(report))
  if (o.output === 'compare') {
    const rows = []
    for (const jobs of [1e6, 10e6, 100e6])
      rows.push({ jobs, report: await reportOf(facts, o.params, { ...o.usage, jobsPerMonth: jobs }) })
    return console.log(compareMarkdown(rows))
  }
  printReport(report)
  console.log(`\nprices: ${Object.values(PRICES).length} list prices dated ${PRICES_DATE} (tools/cost/prices.ts)`)
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
