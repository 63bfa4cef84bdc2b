// The CloudWatch part of the bill, as serverless.yml deploys it: the scan function's custom metrics (counted from its
// metric code, tools/cost/metrics.ts), the alarms of deploy/monitoring.ts (4 + one per target queue's DLQ), the
// dashboard, and the logs the functions write (the scan's EMF windows and end-of-run line, Lambda's own lines, the
// HTTP API's access log), measured from what the code writes.
import { HOURS_PER_MONTH, PRICES } from './prices'

/** One 10 s metrics window of a workload: the distinct metrics it published and the bytes CloudWatch Logs ingests. */
export interface WindowFigures {
  metrics: number
  ingestBytes: number
}

/** What `npm run cost` measures from the code before it prices (tools/cost/metrics.ts). */
export interface Observability {
  /** Nothing pending, nothing sent. */
  idle: WindowFigures
  /** Jobs pending in 1 and in 3 queues, none sent in the window. */
  pending1: WindowFigures
  pending3: WindowFigures
  /** Jobs pending and sent in 1 and in 3 queues. */
  busy1: WindowFigures
  busy3: WindowFigures
  /** The handler's 'scan finished' line, idle run and busy run (bytes ingested). */
  runLineIdleBytes: number
  runLineBusyBytes: number
  /** Lambda's START/END/REPORT lines of one invocation (bytes ingested). */
  platformBytes: number
  /** One HTTP API access log line (bytes ingested). */
  accessLogBytes: number
}

export const METRICS_WINDOW_S = 10

/** Alarms deploy/monitoring.ts creates: oldest due age, dead-lettered, Redis memory, scan errors, and a DLQ's each. */
export const alarmsFor = (queues: number) => 4 + queues

/** A workload's window figures for `queues` queues: linear in the queues, from the 1- and 3-queue measurements. */
function forQueues(one: WindowFigures, three: WindowFigures, queues: number): WindowFigures {
  const at = (a: number, b: number) => a + ((b - a) / 2) * (queues - 1)
  return { metrics: at(one.metrics, three.metrics), ingestBytes: at(one.ingestBytes, three.ingestBytes) }
}

export interface CloudWatchInput {
  jobsPerMonth: number
  waitHours: number
  queues: number
  dashboard: boolean
  /** Scan invocations a month and their seconds in total. */
  scanInvocations: number
  scanSeconds: number
  /** API invocations a month, their billed ms each, and whether each writes an HTTP API access log line. */
  apiRequests: number
  apiAccessLog: boolean
  /** Lambda's START/END/REPORT lines for each API request (a SystemLogLevel of WARN drops them). Default true. */
  apiPlatformLogs?: boolean
  /** Lambda's START/END/REPORT lines for each scan invocation. Default true. */
  scanPlatformLogs?: boolean
  /** The template's count (metrics alarms read); default 4 + one per queue. */
  alarms?: number
  /** Days the log groups keep what they ingest (0: forever, priced as a year's worth). */
  retentionDays?: number
}

export interface CloudWatchUsage {
  metricMonths: number
  alarms: number
  dashboards: number
  logsGb: number
}

export function cloudWatchLines(c: CloudWatchInput, o: Observability) {
  const perHour = c.jobsPerMonth / HOURS_PER_MONTH
  const pending = perHour * c.waitHours
  // Share of hours (and of 10 s windows) with jobs sent, and with jobs pending.
  const sentHours = Math.min(1, perHour)
  const pendingHours = Math.min(1, Math.max(pending, sentHours))
  const perWindow = perHour / (3600 / METRICS_WINDOW_S)
  const sentWindows = Math.min(1, perWindow)
  const pendingWindows = Math.min(1, Math.max(pending, sentWindows))
  const q = Math.max(1, c.queues)
  const pendingQ = forQueues(o.pending1, o.pending3, q)
  const busyQ = forQueues(o.busy1, o.busy3, q)
  const mix = (pick: (w: WindowFigures) => number, sent: number, pend: number) =>
    pick(o.idle) + pend * (pick(pendingQ) - pick(o.idle)) + sent * (pick(busyQ) - pick(pendingQ))
  const metricMonths = mix((w) => w.metrics, sentHours, pendingHours)
  const windowBytes = mix((w) => w.ingestBytes, sentWindows, pendingWindows)
  // A window every 10 s of a run and one when it ends; each run's end line and Lambda's own lines.
  const windows = c.scanInvocations + c.scanSeconds / METRICS_WINDOW_S
  const runLine = o.runLineIdleBytes + sentHours * (o.runLineBusyBytes - o.runLineIdleBytes)
  const scanPlatform = c.scanPlatformLogs === false ? 0 : o.platformBytes
  const scanBytes = windows * windowBytes + c.scanInvocations * (runLine + scanPlatform)
  const apiLineBytes = (c.apiPlatformLogs === false ? 0 : o.platformBytes) + (c.apiAccessLog ? o.accessLogBytes : 0)
  const apiBytes = c.apiRequests * apiLineBytes
  const alarms = c.alarms ?? alarmsFor(c.queues)
  const usage: CloudWatchUsage = {
    metricMonths,
    alarms,
    dashboards: c.dashboard ? 1 : 0,
    logsGb: (scanBytes + apiBytes) / 1e9,
  }
  const kb = (b: number) => `${(b / 1000).toFixed(2)} KB`
  const lines = [
    {
      item: 'CloudWatch custom metrics (scan EMF)',
      quantity: `${metricMonths.toFixed(1)} metric-months (${o.idle.metrics} idle, ${pendingQ.metrics} with jobs pending, ${busyQ.metrics} sending, ${q} queues; from the metric code)`,
      usd: metricMonths * PRICES.cloudWatchMetricMonth.usd,
    },
    {
      item: 'CloudWatch alarms',
      quantity: `${alarms} alarms${c.alarms === undefined ? ' (4 + a DLQ alarm per queue)' : ' (from the template)'}`,
      usd: alarms * PRICES.cloudWatchAlarmMonth.usd,
    },
    {
      item: 'CloudWatch dashboard',
      quantity: c.dashboard
        ? '1 dashboard (serverless param dashboard=true)'
        : 'none (serverless param dashboard=false)',
      usd: c.dashboard ? PRICES.cloudWatchDashboardMonth.usd : 0,
    },
    {
      item: 'CloudWatch Logs: scan function',
      quantity: `${(scanBytes / 1e9).toFixed(3)} GB (${Math.round(windows).toLocaleString('en-US')} windows x ${kb(windowBytes)} + ${Math.round(c.scanInvocations).toLocaleString('en-US')} runs x ${kb(runLine + scanPlatform)})`,
      usd: (scanBytes / 1e9) * PRICES.logsIngestGb.usd,
    },
  ]
  if (c.apiRequests > 0)
    lines.push({
      item: 'CloudWatch Logs: API',
      quantity: `${(apiBytes / 1e9).toFixed(3)} GB (${Math.round(c.apiRequests).toLocaleString('en-US')} requests x ${kb(apiLineBytes)}${c.apiAccessLog ? ', access log included' : ''}${c.apiPlatformLogs === false ? ', no START/END/REPORT lines (SystemLogLevel WARN)' : ''})`,
      usd: (apiBytes / 1e9) * PRICES.logsIngestGb.usd,
    })
  lines.push(storedLogsLine((scanBytes + apiBytes) / 1e9, c.retentionDays ?? 14, 'scan and API'))
  return { lines, usage }
}

/**
 * What the log groups hold at any time: a month's ingest x retention / 30 days (a year's worth when kept forever).
 * CloudWatch bills stored logs compressed; the ratio is not published, so this is the uncompressed upper bound.
 */
export function storedLogsLine(ingestGbPerMonth: number, retentionDays: number, what: string) {
  const gb = ingestGbPerMonth * ((retentionDays || 365) / 30)
  return {
    item: `CloudWatch Logs stored: ${what}`,
    quantity: `${gb.toFixed(3)} GB held (${retentionDays ? `${retentionDays} days' retention` : 'kept forever: a year priced'}, uncompressed: an upper bound)`,
    usd: gb * PRICES.logsStoredGbMonth.usd,
  }
}
