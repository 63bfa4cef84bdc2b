// What the scan function publishes to CloudWatch, counted from the code itself: the real ScanMetrics is fed one 10 s
// window of a workload (idle; jobs pending and being sent to N target queues) and its EMF lines on stdout are read
// back. CloudWatch bills each metric (name + dimension set) for every hour in which it gets a data point, so the
// distinct metrics of a window are the custom metrics of every hour the workload lasts; the lines' bytes are what
// CloudWatch Logs ingests per window. The scan's end-of-run log line is measured the same way: the real Powertools
// Logger writing the handler's 'scan finished' line (functions/scan.ts).
import { readFileSync } from 'node:fs'
import { resolve } from 'node:path'
import { Logger } from '@aws-lambda-powertools/logger'
import { CpuShareMeter } from '../../src/scan/observe/cpu-share'
import { METRICS_INTERVAL_MS, ScanMetrics } from '../../src/scan/observe/metrics'
import { emptyReport } from '../../src/scan/observe/run-tally'
import type { Observability, WindowFigures } from './cloudwatch'

export interface Workload {
  /** Target queues with jobs pending and jobs sent in the window (0: idle, nothing pending). */
  busyQueues: number
  /** Target queues with jobs pending (due later) and nothing sent in the window. */
  pendingQueues?: number
}

export interface MetricsMeasured {
  /** Distinct metrics (name + dimensions) the window published: custom metrics per hour of this workload. */
  metrics: string[]
  /** Bytes of the window's EMF lines (newlines included): log bytes per 10 s window. */
  emfBytes: number
  /** The same with CloudWatch Logs' 26 bytes per log event: what is billed. */
  ingestBytes: number
}

const quiet = { info() {}, warn() {}, error() {} }

/** Runs `work` and returns what it wrote to stdout (nothing is printed). */
async function captureStdout(work: () => Promise<void>): Promise<string> {
  const chunks: string[] = []
  const write = process.stdout.write
  process.stdout.write = ((chunk: string | Uint8Array) => {
    chunks.push(String(chunk))
    return true
  }) as typeof process.stdout.write
  try {
    await work()
  } finally {
    process.stdout.write = write
  }
  return chunks.join('')
}

/** The metrics one window of `workload` publishes, on Lambda (CPU share), Redis with maxmemory. */
export async function measureWindow(workload: Workload): Promise<MetricsMeasured> {
  const queues = Array.from({ length: workload.busyQueues }, (_, i) => `queue-${i + 1}`)
  const waiting = Array.from({ length: workload.pendingQueues ?? 0 }, (_, i) => `later-${i + 1}`)
  let cpu = 0
  let wall = 0
  const now = Date.now()
  const metrics = new ScanMetrics({
    serviceName: 'serverless-delay-queue-prod',
    loops: 1,
    readBacklog: async () => ({
      pending: Object.fromEntries([...queues, ...waiting].map((q) => [q, 1_000_000])),
      earliestDueMs: queues.length ? now - 12 : waiting.length ? now + 60_000 : null,
    }),
    // One instant for the whole window: the figures (and the bytes that print them) do not depend on timing.
    redisNow: () => now,
    readMemory: () => ({ node: 'primary', usedBytes: 3e8, maxBytes: 1e9, percent: 30, policy: 'noeviction' }),
    takeSqsRequests: () => (queues.length ? 40 : 0),
    cpuShare: new CpuShareMeter(512, { cpuMs: () => (cpu += 1_500), wallMs: () => (wall += METRICS_INTERVAL_MS) }),
    logger: quiet,
    intervalMs: 3_600_000,
  })
  for (const queue of queues) for (let n = 0; n < 130; n++) metrics.sent(queue, 100 + n)
  const out = await captureStdout(() => metrics.flush())
  const lines = out
    .split('\n')
    .filter((l) => l.startsWith('{"_aws"'))
    .map((l) => JSON.parse(l))
  const names = new Set<string>()
  for (const line of lines)
    for (const directive of line._aws.CloudWatchMetrics)
      for (const set of directive.Dimensions)
        for (const m of directive.Metrics)
          names.add(`${m.Name}{${set.map((d: string) => `${d}=${line[d]}`).join(',')}}`)
  const emfBytes = Buffer.byteLength(out)
  return { metrics: [...names].sort(), emfBytes, ingestBytes: emfBytes + lines.length * LOG_EVENT_OVERHEAD_BYTES }
}

/** Bytes of the scan handler's 'scan finished' line, as the real Logger writes it with a Lambda context. */
export async function measureRunLogBytes(busy: boolean): Promise<number> {
  const logger = new Logger({ serviceName: 'serverless-delay-queue-prod' })
  logger.addContext({
    functionName: 'serverless-delay-queue-prod-scan',
    functionVersion: '$LATEST',
    invokedFunctionArn: 'arn:aws:lambda:us-east-1:123456789012:function:serverless-delay-queue-prod-scan',
    memoryLimitInMB: '512',
    awsRequestId: '9f6c1a52-3f0e-4c1b-9a57-1f2e3d4c5b6a',
  } as never)
  const report = {
    ...emptyReport(),
    ...(busy
      ? {
          dispatched: 2_280,
          claims: 2_300,
          sqsRequests: 240,
          lateness: { p50: 180, p99: 950, max: 1_020 },
          latenessParts: { claimP99: 12, sendP99: 30 },
        }
      : {}),
    durationMs: 55_012,
    memory: { node: 'primary', usedBytes: 3e8, maxBytes: 1e9, percent: 30, policy: 'noeviction' },
    handedOverTo: busy ? '5d1b2c3a-1111-4a2b-8c3d-9e8f7a6b5c4d' : null,
  }
  const out = await captureStdout(async () =>
    logger.info('scan finished', { mode: 'continuous', source: 'aws.events', activeMs: 55_020, ...report }),
  )
  return Buffer.byteLength(out)
}

/** CloudWatch Logs counts 26 bytes of metadata with every log event (the PutLogEvents batch size rule). */
export const LOG_EVENT_OVERHEAD_BYTES = 26

/**
 * Lambda's own lines per invocation in the text log format the functions use (START, END, REPORT), filled with
 * values of a typical length: not read from a real log stream (none here), so an estimate of ~300 bytes. A cold
 * start's REPORT adds Init Duration.
 */
export function lambdaPlatformLogBytes(durationMs: number, memoryMb: number): number {
  const id = '9f6c1a52-3f0e-4c1b-9a57-1f2e3d4c5b6a'
  const lines = [
    `START RequestId: ${id} Version: $LATEST\n`,
    `END RequestId: ${id}\n`,
    `REPORT RequestId: ${id}\tDuration: ${durationMs.toFixed(2)} ms\tBilled Duration: ${Math.ceil(durationMs)} ms\tMemory Size: ${memoryMb} MB\tMax Memory Used: ${Math.round(memoryMb / 4)} MB\t\n`,
  ]
  return lines.reduce((n, l) => n + Buffer.byteLength(l) + LOG_EVENT_OVERHEAD_BYTES, 0)
}

/**
 * One HTTP API access log line in `format` (the stage's AccessLogSettings.Format, read from the template; by default
 * serverless.yml's), each $context variable filled in with a value of its usual length (an IAM caller, a POST /jobs
 * answered 201).
 */
export function accessLogBytes(root = process.cwd(), format = accessLogFormatOf(root)): number {
  const values: Record<string, string> = {
    requestId: 'Jd3kZgFMIAMEVbA=',
    'identity.sourceIp': '203.0.113.45',
    'identity.caller': 'AROAJQABLZS4A3QDU576Q:order-service',
    requestTime: '26/Nov/2026:01:23:45 +0000',
    routeKey: 'POST /jobs',
    status: '201',
    responseLength: '112',
    responseLatency: '18',
    integrationLatency: '15',
    integrationErrorMessage: '-',
  }
  const line = format.replace(/\$context\.([\w.]+)/g, (_, name: string) => values[name] ?? '-')
  return Buffer.byteLength(`${line}\n`) + LOG_EVENT_OVERHEAD_BYTES
}

function accessLogFormatOf(root: string): string {
  const yml = readFileSync(resolve(root, 'serverless.yml'), 'utf8')
  const format = yml.match(/^\s+format: '(\{"requestId".*\})'$/m)?.[1]
  if (!format) throw new Error('serverless.yml: no HTTP API access log format found (provider.logs.httpApi.format)')
  return format
}

/** Everything the CloudWatch lines of the model need, measured from the code. */
export async function measureObservability(runDurationS: number, scanMemoryMb: number): Promise<Observability> {
  const window = async (w: Workload): Promise<WindowFigures> => {
    const m = await measureWindow(w)
    return { metrics: m.metrics.length, ingestBytes: m.ingestBytes }
  }
  return {
    idle: await window({ busyQueues: 0 }),
    pending1: await window({ busyQueues: 0, pendingQueues: 1 }),
    pending3: await window({ busyQueues: 0, pendingQueues: 3 }),
    busy1: await window({ busyQueues: 1 }),
    busy3: await window({ busyQueues: 3 }),
    runLineIdleBytes: (await measureRunLogBytes(false)) + LOG_EVENT_OVERHEAD_BYTES,
    runLineBusyBytes: (await measureRunLogBytes(true)) + LOG_EVENT_OVERHEAD_BYTES,
    platformBytes: lambdaPlatformLogBytes(runDurationS * 1000, scanMemoryMb),
    accessLogBytes: accessLogBytes(),
  }
}
