// What a packaged CloudFormation template decides about the bill, read from the template itself: the functions
// (memory, timeout, settings, logging), the scan's schedule and mode, the front door (HTTP API with or without an
// access log, or a Function URL), the queues and their consumers, alarms, dashboards, log groups and their retention,
// and the interface VPC endpoints it creates. Nothing here is typed by hand: `npm run cost` bills from these facts
// and takes only usage (jobs, delays, payload, queues used) from its flags.
import { readFileSync } from 'node:fs'
import type { Egress } from './egress'
import type { ScanMode } from './model'

// biome-ignore lint/suspicious/noExplicitAny: CloudFormation as plain JSON, read field by field
type Json = Record<string, any>

export interface FunctionFacts {
  logicalId: string
  memoryMb: number
  timeoutS: number
  env: Record<string, string>
  /** LoggingConfig.SystemLogLevel: WARN drops Lambda's START/END/REPORT lines from the function's log group. */
  platformLogs: boolean
}

export interface ConsumerFacts {
  logicalId: string
  /** Its Handler (`functions/consumer.handler`: the example consumer). */
  handler: string
  memoryMb: number
  batchSize: number
  /** MaximumBatchingWindowInSeconds of its event source mapping (0: Lambda invokes as soon as it has messages). */
  batchingWindowS: number
  platformLogs: boolean
}

export interface TemplateFacts {
  file: string
  scan: FunctionFacts & { mode: ScanMode; windowMs: number; receiptTtlHours: number; ticksPerHour: number }
  api: FunctionFacts & { frontDoor: 'httpApi' | 'functionUrl'; accessLog: boolean; accessLogFormat?: string }
  /** Lambda functions fed by SQS event source mappings (the example consumer in the default template). */
  consumers: ConsumerFacts[]
  targetQueues: number
  deadLetterQueues: number
  alarms: number
  dashboards: number
  /** Log groups the stack creates and their retention in days (0: kept forever). */
  logGroups: { logicalId: string; retentionDays: number }[]
  /** `ipv6` when the functions use the dual-stack endpoints; `endpoints` when the stack creates interface endpoints;
   * `outside` when it expects the VPC to route to SQS already (endpoints or a NAT gateway it does not create). */
  egress: Egress | 'outside'
  /** The interface VPC endpoints the stack creates (one each per AZ). */
  vpcEndpoints: string[]
}

/** The delay queue's API handler (serverless.yml `functions.api`). */
const API_HANDLER = 'functions/api.handler'

const ofType = (t: Json, type: string) =>
  Object.entries<Json>(t.Resources ?? {}).filter(([, r]) => r.Type === type && !r.Condition)

/** A literal or a stack parameter's default (the value a deploy without overrides gets). */
function literal(t: Json, v: unknown): unknown {
  if (v && typeof v === 'object' && 'Ref' in (v as Json)) return t.Parameters?.[(v as Json).Ref]?.Default
  return v
}

function functionFacts(t: Json, logicalId: string): FunctionFacts {
  const p = t.Resources[logicalId]?.Properties
  if (!p) throw new Error(`the template has no function ${logicalId}`)
  return {
    logicalId,
    memoryMb: Number(literal(t, p.MemorySize) ?? 128),
    timeoutS: Number(literal(t, p.Timeout) ?? 3),
    env: Object.fromEntries(
      Object.entries<unknown>(p.Environment?.Variables ?? {}).map(([k, v]) => [k, String(literal(t, v) ?? '')]),
    ),
    platformLogs: p.LoggingConfig?.SystemLogLevel !== 'WARN',
  }
}

/** Invocations an hour of a `rate(N unit)` schedule; `cron(...)` is not priced (the scan's schedule is a rate). */
export function ticksPerHourOf(expression: string): number {
  const m = /^rate\((\d+) (minute|minutes|hour|hours)\)$/.exec(expression)
  if (!m) throw new Error(`cannot price the schedule ${expression}: a rate(N minutes|hours) is expected`)
  const n = Number(m[1])
  return m[2]!.startsWith('minute') ? 60 / n : 1 / n
}

/** The scan function is the one an enabled scheduled rule targets; the API the one with the HTTP API or a URL. */
export function readTemplate(file: string): TemplateFacts {
  const t: Json = JSON.parse(readFileSync(file, 'utf8'))
  const rules = ofType(t, 'AWS::Events::Rule').filter(([, r]) => r.Properties.State !== 'DISABLED')
  const [, rule] = rules[0] ?? []
  const scanId = rule?.Properties.Targets?.[0]?.Arn?.['Fn::GetAtt']?.[0]
  if (!scanId) throw new Error(`${file}: no enabled scheduled rule that starts a function (the scan)`)
  const scan = functionFacts(t, scanId)
  const urls = ofType(t, 'AWS::Lambda::Url')
  const integrations = ofType(t, 'AWS::ApiGatewayV2::Integration')
  // Other functions may have a URL or routes too (the Scheduler-compatible API): the API is the one whose handler is
  // functions/api.handler, else the first.
  const targets = urls.length
    ? urls.map(([, u]) => String(u.Properties.TargetFunctionArn['Fn::GetAtt'][0]))
    : integrations.flatMap(([, i]) => JSON.stringify(i.Properties.IntegrationUri ?? '').match(/"(\w+)"/)?.[1] ?? [])
  const apiFn = targets.find((id) => t.Resources[id]?.Properties?.Handler === API_HANDLER) ?? targets[0]
  if (!apiFn) throw new Error(`${file}: no API function (neither a Function URL nor an HTTP API integration)`)
  const stage = ofType(t, 'AWS::ApiGatewayV2::Stage')[0]?.[1]
  const queues = ofType(t, 'AWS::SQS::Queue')
  const dlqIds = new Set(
    queues.map(([, q]) => q.Properties.RedrivePolicy?.deadLetterTargetArn?.['Fn::GetAtt']?.[0]).filter(Boolean),
  )
  const consumers = ofType(t, 'AWS::Lambda::EventSourceMapping')
    .filter(([, m]) => {
      const source = m.Properties.EventSourceArn
      const id = source?.['Fn::GetAtt']?.[0]
      return id ? t.Resources[id]?.Type === 'AWS::SQS::Queue' : JSON.stringify(source).includes(':sqs:')
    })
    .map(([, m]): ConsumerFacts => {
      const fn = functionFacts(t, m.Properties.FunctionName['Fn::GetAtt'][0])
      return {
        logicalId: fn.logicalId,
        handler: String(t.Resources[fn.logicalId].Properties.Handler ?? ''),
        memoryMb: fn.memoryMb,
        batchSize: Number(m.Properties.BatchSize ?? 10),
        batchingWindowS: Number(m.Properties.MaximumBatchingWindowInSeconds ?? 0),
        platformLogs: fn.platformLogs,
      }
    })
  const vpcEndpoints = ofType(t, 'AWS::EC2::VPCEndpoint').map(([, e]) =>
    String(JSON.stringify(e.Properties.ServiceName).match(/\.(\w+)"/)?.[1] ?? 'unknown'),
  )
  const egress = scan.env.AWS_USE_DUALSTACK_ENDPOINT === 'true' ? 'ipv6' : vpcEndpoints.length ? 'endpoints' : 'outside'
  return {
    file,
    scan: {
      ...scan,
      mode: (scan.env.SCAN_MODE === 'on-demand' ? 'on-demand' : 'continuous') as ScanMode,
      windowMs: Number(scan.env.DISPATCH_WINDOW_MS ?? 0),
      receiptTtlHours: Number(scan.env.DISPATCH_RECEIPT_TTL_MS ?? 86_400_000) / 3_600_000,
      ticksPerHour: rules.reduce((n, [, r]) => n + ticksPerHourOf(r.Properties.ScheduleExpression), 0),
    },
    api: {
      ...functionFacts(t, apiFn),
      frontDoor: urls.length ? 'functionUrl' : 'httpApi',
      accessLog: Boolean(stage?.Properties.AccessLogSettings),
      ...(stage?.Properties.AccessLogSettings?.Format
        ? { accessLogFormat: String(stage.Properties.AccessLogSettings.Format) }
        : {}),
    },
    consumers,
    targetQueues: queues.filter(([id]) => !dlqIds.has(id)).length,
    deadLetterQueues: dlqIds.size,
    alarms: ofType(t, 'AWS::CloudWatch::Alarm').reduce(
      // An alarm on metric math is billed per metric it reads.
      (n, [, a]) => n + Math.max(1, (a.Properties.Metrics ?? []).filter((m: Json) => m.MetricStat).length),
      0,
    ),
    dashboards: ofType(t, 'AWS::CloudWatch::Dashboard').length,
    logGroups: ofType(t, 'AWS::Logs::LogGroup').map(([id, g]) => ({
      logicalId: id,
      retentionDays: Number(literal(t, g.Properties.RetentionInDays) ?? 0),
    })),
    egress,
    vpcEndpoints,
  }
}
