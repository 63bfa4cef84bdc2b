// What tools/cost/template.ts reads from a CloudFormation template: the scan is the function an enabled scheduled
// rule starts, the API the one behind a Function URL or the HTTP API, and the bill's other inputs (alarms per metric,
// dashboards, log retention, endpoints, the API's log settings) as the template states them.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { readTemplate, ticksPerHourOf } from '../../tools/cost/template'

const dir = mkdtempSync(join(tmpdir(), 'sdq-facts-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const fn = (memory: number, env: Record<string, unknown> = {}, extra: Record<string, unknown> = {}) => ({
  Type: 'AWS::Lambda::Function',
  Properties: { MemorySize: memory, Timeout: 30, Environment: { Variables: env }, ...extra },
})
const getAtt = (id: string) => ({ 'Fn::GetAtt': [id, 'Arn'] })
// CloudFormation's own substitution, written out as text: not a JavaScript template.
const REGION_VAR = ['$', '{AWS::Region}'].join('')

function write(name: string, template: unknown): string {
  const file = join(dir, name)
  writeFileSync(file, JSON.stringify(template))
  return file
}

describe('the facts of a template', () => {
  it('takes the scan from the enabled rule, the API from its Function URL (by its handler), and counts what bills', () => {
    // prepare
    const file = write('url.json', {
      Parameters: { Memory: { Type: 'Number', Default: 384 } },
      Resources: {
        Off: {
          Type: 'AWS::Events::Rule',
          Properties: { State: 'DISABLED', ScheduleExpression: 'rate(1 minute)', Targets: [{ Arn: getAtt('Other') }] },
        },
        Tick: {
          Type: 'AWS::Events::Rule',
          Properties: {
            State: 'ENABLED',
            ScheduleExpression: 'rate(2 minutes)',
            Targets: [{ Arn: getAtt('Scanner') }],
          },
        },
        Scanner: fn(0, {
          SCAN_MODE: 'on-demand',
          DISPATCH_WINDOW_MS: '250',
          DISPATCH_RECEIPT_TTL_MS: '3600000',
          AWS_USE_DUALSTACK_ENDPOINT: 'true',
        }),
        Other: fn(128, {}, { Handler: 'other.handler' }),
        // another function with a URL of its own, listed first (the Scheduler-compatible API's)
        Side: fn(128, {}, { Handler: 'functions/scheduler.handler' }),
        SideUrl: { Type: 'AWS::Lambda::Url', Properties: { AuthType: 'AWS_IAM', TargetFunctionArn: getAtt('Side') } },
        Front: fn(
          256,
          {},
          { Handler: 'functions/api.handler', LoggingConfig: { LogFormat: 'JSON', SystemLogLevel: 'WARN' } },
        ),
        FrontUrl: { Type: 'AWS::Lambda::Url', Properties: { AuthType: 'AWS_IAM', TargetFunctionArn: getAtt('Front') } },
        Q: { Type: 'AWS::SQS::Queue', Properties: { RedrivePolicy: { deadLetterTargetArn: getAtt('QDlq') } } },
        QDlq: { Type: 'AWS::SQS::Queue', Properties: {} },
        Mapping: {
          Type: 'AWS::Lambda::EventSourceMapping',
          Properties: { EventSourceArn: getAtt('Q'), FunctionName: getAtt('Other'), BatchSize: 5 },
        },
        One: { Type: 'AWS::CloudWatch::Alarm', Properties: { MetricName: 'X' } },
        Math: {
          Type: 'AWS::CloudWatch::Alarm',
          Properties: { Metrics: [{ MetricStat: {} }, { MetricStat: {} }, { Expression: 'a+b' }] },
        },
        Logs: { Type: 'AWS::Logs::LogGroup', Properties: { RetentionInDays: 7 } },
        Forever: { Type: 'AWS::Logs::LogGroup', Properties: {} },
      },
    })
    // act
    const facts = readTemplate(file)
    // assess
    expect(facts.scan).toMatchObject({
      logicalId: 'Scanner',
      mode: 'on-demand',
      windowMs: 250,
      receiptTtlHours: 1,
      ticksPerHour: 30,
    })
    expect(facts.api).toMatchObject({
      logicalId: 'Front',
      memoryMb: 256,
      frontDoor: 'functionUrl',
      platformLogs: false,
    })
    expect(facts.consumers).toEqual([
      {
        logicalId: 'Other',
        handler: 'other.handler',
        memoryMb: 128,
        batchSize: 5,
        batchingWindowS: 0,
        platformLogs: true,
      },
    ])
    expect([facts.targetQueues, facts.deadLetterQueues]).toEqual([1, 1])
    expect(facts.alarms).toBe(3) // one metric, and metric math over two
    expect(facts.dashboards).toBe(0)
    expect(facts.logGroups.map((g) => g.retentionDays)).toEqual([7, 0])
    expect(facts.egress).toBe('ipv6')
  })

  it('takes the API from the HTTP API integration, with its access log, and the endpoints the stack creates', () => {
    const file = write('http.json', {
      Resources: {
        Tick: {
          Type: 'AWS::Events::Rule',
          Properties: { ScheduleExpression: 'rate(1 hour)', Targets: [{ Arn: getAtt('ScanLambdaFunction') }] },
        },
        ScanLambdaFunction: fn(512),
        ApiLambdaFunction: fn(512),
        Integration: {
          Type: 'AWS::ApiGatewayV2::Integration',
          Properties: { IntegrationUri: { 'Fn::GetAtt': ['ApiLambdaFunction', 'Arn'] } },
        },
        Stage: { Type: 'AWS::ApiGatewayV2::Stage', Properties: { AccessLogSettings: { Format: '{}' } } },
        Sqs: {
          Type: 'AWS::EC2::VPCEndpoint',
          Properties: { ServiceName: { 'Fn::Sub': `com.amazonaws.${REGION_VAR}.sqs` } },
        },
        Board: { Type: 'AWS::CloudWatch::Dashboard', Properties: {} },
      },
    })
    const facts = readTemplate(file)
    expect(facts.api).toMatchObject({
      logicalId: 'ApiLambdaFunction',
      frontDoor: 'httpApi',
      accessLog: true,
      accessLogFormat: '{}',
      platformLogs: true,
    })
    expect(facts.scan).toMatchObject({ mode: 'continuous', windowMs: 0, receiptTtlHours: 24, ticksPerHour: 1 })
    expect(facts.egress).toBe('endpoints')
    expect(facts.vpcEndpoints).toEqual(['sqs'])
    expect(facts.dashboards).toBe(1)
  })

  it('refuses a schedule it cannot price and a template without a scheduled scan', () => {
    expect(ticksPerHourOf('rate(5 minutes)')).toBe(12)
    expect(() => ticksPerHourOf('cron(0 * * * ? *)')).toThrow('cannot price the schedule')
    expect(() => readTemplate(write('none.json', { Resources: {} }))).toThrow('no enabled scheduled rule')
  })
})
