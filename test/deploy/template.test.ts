// What `serverless package --stage prod` builds, read from the CloudFormation template: run like a clean CI machine
// (no AWS credentials or config files, none of our settings in the environment, no network).
import { execFile } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { inflateRawSync } from 'node:zlib'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { bundledPackages, notRuntimeDependencies } from '../support/bundled-packages'
import { oneAtATime } from '../../devkit/package-lock'
import { deployedWith } from '../support/cfn-conditions'
import { ROUTES } from '../../src/api/router'

const root = resolve(__dirname, '../..')
type Json = Record<string, any>

/** Every environment variable src/config.ts reads (the Lambda runtime provides the AWS_* ones). */
function configSettingNames(): string[] {
  const source = readFileSync(resolve(root, 'src/config.ts'), 'utf8')
  const names = new Set<string>()
  for (const m of source.matchAll(/env\.([A-Z][A-Z0-9_]+)/g)) names.add(m[1]!)
  for (const m of source.matchAll(/int\('([A-Z][A-Z0-9_]+)'/g)) names.add(m[1]!)
  names.delete('AWS_REGION')
  names.delete('AWS_DEFAULT_REGION')
  return [...names].sort()
}

/** Runs this repository's osls; no AWS credentials can be found, and serverless.yml's defaults apply. */
async function sls(args: string[]): Promise<string> {
  const drop = new Set(configSettingNames())
  const env: NodeJS.ProcessEnv = {}
  for (const [k, v] of Object.entries(process.env))
    if (!k.startsWith('AWS_') && !k.startsWith('SDQ_') && !drop.has(k)) env[k] = v
  // An esbuild work folder of its own, so a dev stack or another packaging run keeps its build.
  const workFolder = `.esbuild/test-${randomBytes(4).toString('hex')}`
  Object.assign(env, {
    SDQ_ESBUILD_WORK_FOLDER: workFolder,
    AWS_SHARED_CREDENTIALS_FILE: '/nonexistent/credentials',
    AWS_CONFIG_FILE: '/nonexistent/config',
    AWS_EC2_METADATA_DISABLED: 'true',
    FORCE_COLOR: '0',
  })
  // `package` under the repository's package lock (test/support/sls.ts): another file's packaging would otherwise
  // clean up the .serverless folder under this one (ENOENT on api.zip).
  const run =
    args[0] === 'package'
      ? <T>(work: () => Promise<T>) => oneAtATime(root, work)
      : <T>(work: () => Promise<T>) => work()
  try {
    return await run(
      () =>
        new Promise<string>((ok, fail) =>
          execFile(
            process.execPath,
            [resolve(root, 'node_modules/serverless/bin/serverless.js'), ...args],
            { cwd: root, env, maxBuffer: 64 << 20, timeout: 120_000 },
            (error, stdout, stderr) =>
              error
                ? fail(new Error(`serverless ${args.join(' ')}: ${error.message}\n${stderr}\n${stdout}`))
                : ok(stdout),
          ),
        ),
    )
  } finally {
    rmSync(resolve(root, workFolder), { recursive: true, force: true })
  }
}

async function printConfig(stage: string, ...extra: string[]): Promise<Json> {
  const out = await sls(['print', '--stage', stage, '--format', 'json', ...extra])
  return JSON.parse(out.slice(out.indexOf('{')))
}

/** The files of a zip archive (central directory; stored or deflated entries). */
function unzip(zip: Buffer): Map<string, string> {
  const files = new Map<string, string>()
  const end = zip.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]))
  let at = zip.readUInt32LE(end + 16)
  for (let n = zip.readUInt16LE(end + 10); n > 0; n--) {
    const method = zip.readUInt16LE(at + 10)
    const size = zip.readUInt32LE(at + 20)
    const nameLength = zip.readUInt16LE(at + 28)
    const skip = nameLength + zip.readUInt16LE(at + 30) + zip.readUInt16LE(at + 32)
    const name = zip.toString('utf8', at + 46, at + 46 + nameLength)
    const local = zip.readUInt32LE(at + 42)
    const start = local + 30 + zip.readUInt16LE(local + 26) + zip.readUInt16LE(local + 28)
    const data = zip.subarray(start, start + size)
    files.set(name, (method === 8 ? inflateRawSync(data) : data).toString('utf8'))
    at += 46 + skip
  }
  return files
}

const getAtt = (logicalId: string) => ({ 'Fn::GetAtt': [logicalId, 'Arn'] })
const asList = <T>(v: T | T[]): T[] => (Array.isArray(v) ? v : [v])

let outDir: string
let template: Json
let resources: Record<string, Json>
const ofType = (type: string) => Object.entries(resources).filter(([, r]) => r.Type === type)
const fn = (key: string): Json => resources[`${key[0]!.toUpperCase()}${key.slice(1)}LambdaFunction`]!.Properties
/** A role's statements as deployed with the stack parameters' defaults (optional grants are `Fn::If`s). */
const statements = (roleId: string): Json[] =>
  deployedWith(template, resources[roleId]!.Properties.Policies as Json[]).flatMap((p) => p.PolicyDocument.Statement)
/** The actions of a role's inline policies on one service (`prefix`: 'sqs:', 'lambda:'). */
const actionsOn = (prefix: string, roleId: string) =>
  statements(roleId)
    .flatMap((s) => asList<string>(s.Action))
    .filter((a) => a.startsWith(prefix))
const sqsActions = (roleId: string) => actionsOn('sqs:', roleId)

/** QUEUES = Fn::Join of "name=" strings and { Ref: <queue> }: the target name -> queue logical id map. */
function queuesOf(env: Json): Map<string, string> {
  const parts: unknown[] = env.QUEUES['Fn::Join'][1]
  const map = new Map<string, string>()
  for (let i = 0; i < parts.length; i += 2) {
    map.set(String(parts[i]).replace(/^,/, '').replace(/=$/, ''), (parts[i + 1] as Json).Ref)
  }
  return map
}

/** The API Gateway front door, continuous scanning and the dashboard: every resource the stack can have at once. */
const EVERYTHING = ['--param=apiEndpoint=httpApi', '--param=scanMode=continuous', '--param=dashboard=true']

beforeAll(async () => {
  outDir = mkdtempSync(join(tmpdir(), 'sdq-package-'))
  await sls(['package', '--stage', 'prod', '--package', outDir, ...EVERYTHING])
  template = JSON.parse(readFileSync(join(outDir, 'cloudformation-template-update-stack.json'), 'utf8'))
  resources = template.Resources
}, 180_000)

afterAll(() => {
  if (outDir) rmSync(outDir, { recursive: true, force: true })
})

describe('serverless package --stage prod --param=apiEndpoint=httpApi --param=scanMode=continuous --param=dashboard=true (no credentials, no network)', () => {
  it('runs every function on nodejs24.x, each with a role of its own and the VPC from SSM', () => {
    const functions = ofType('AWS::Lambda::Function').map(([, r]) => r.Properties)
    expect(functions.map((f) => f.FunctionName).sort()).toEqual(
      ['api', 'consumer', 'forwarder', 'scan', 'scheduler'].map((k) => `serverless-delay-queue-prod-${k}`),
    )
    for (const f of functions) {
      expect(f.Runtime).toBe('nodejs24.x')
      expect(f.VpcConfig.SubnetIds).toBeDefined()
      expect(f.VpcConfig.SecurityGroupIds).toBeDefined()
      // egress=endpoints (the default): IPv4 only, through whatever the subnets route to
      expect(f.VpcConfig.Ipv6AllowedForDualStack).toBe(false)
      expect(f.Environment.Variables.AWS_USE_DUALSTACK_ENDPOINT).toBe('false')
    }
    expect(new Set(functions.map((f) => f.Role['Fn::GetAtt'][0]))).toEqual(
      new Set(['ApiRole', 'ScanRole', 'ConsumerRole', 'ForwarderRole', 'SchedulerRole']),
    )
    expect(resources.IamRoleLambdaExecution).toBeUndefined() // no shared role holding everyone's rights
    expect(template.Parameters.SubnetIds.Type).toBe('AWS::SSM::Parameter::Value<List<AWS::EC2::Subnet::Id>>')
    expect(template.Parameters.SecurityGroupIds.Type).toBe(
      'AWS::SSM::Parameter::Value<List<AWS::EC2::SecurityGroup::Id>>',
    )
    expect(template.Parameters.RedisUrl).toMatchObject({
      Type: 'AWS::SSM::Parameter::Value<String>',
      Default: '/serverless-delay-queue/prod/redis-url',
    })
    expect(fn('api').Environment.Variables.REDIS_URL).toEqual({ Ref: 'RedisUrl' })
    // What Lambda uses to manage a VPC function's network interfaces (AWS's list, as in AWSLambdaVPCAccessExecutionRole)
    for (const role of ['ApiRole', 'ScanRole', 'ConsumerRole', 'ForwarderRole', 'SchedulerRole'])
      expect(actionsOn('ec2:', role).sort()).toEqual([
        'ec2:AssignPrivateIpAddresses',
        'ec2:CreateNetworkInterface',
        'ec2:DeleteNetworkInterface',
        'ec2:DescribeNetworkInterfaces',
        'ec2:DescribeSubnets',
        'ec2:UnassignPrivateIpAddresses',
      ])
  })

  it('declares every setting of src/config.ts for the API and the scan, and no Redis URL for the consumer', () => {
    const names = configSettingNames()
    expect(names).toContain('SAFETY_MARGIN_MS')
    for (const key of ['api', 'scan']) {
      expect(Object.keys(fn(key).Environment.Variables)).toEqual(expect.arrayContaining(names))
    }
    const consumerEnv = Object.keys(fn('consumer').Environment.Variables)
    expect(consumerEnv).toContain('SQS_ENDPOINT')
    expect(consumerEnv).not.toContain('REDIS_URL')
    expect(consumerEnv).not.toContain('REDIS_CLUSTER_NODES')
    expect(fn('scan').Environment.Variables.SQS_ENDPOINT).toBe('') // AWS: the SDK's own endpoint
  })

  it('bundles each handler on its own with esbuild, Lua inlined and the AWS SDK (with @smithy/*) left to the runtime', () => {
    const bundles = new Map(
      ['api', 'consumer', 'scan'].map((key) => {
        const files = unzip(readFileSync(join(outDir, `${key}.zip`)))
        // One handler per zip, with its source map.
        expect([...files.keys()].sort()).toEqual([`functions/${key}.js`, `functions/${key}.js.map`])
        return [key, files.get(`functions/${key}.js`)!]
      }),
    )
    const scan = bundles.get('scan')!
    expect(scan).toContain('require("@aws-sdk/client-sqs")')
    expect(scan).not.toMatch(/require\("[^"]*\.lua"\)/)
    expect(scan).toMatch(/redis\.call\(/) // the Lua scripts, inlined as text
    for (const code of bundles.values()) {
      // esbuild marks each bundled package with a "// node_modules/<package>/..." comment: no SDK code inside.
      expect(code).not.toMatch(/^\/\/ node_modules\/@(aws-sdk|smithy)\//m)
    }
  })

  it('bundles only runtime dependencies: every package in a zip is one `npm audit --omit=dev` sees', () => {
    const pkg = JSON.parse(readFileSync(resolve(root, 'package.json'), 'utf8'))
    const lock = JSON.parse(readFileSync(resolve(root, 'package-lock.json'), 'utf8'))
    const problems = ['api', 'consumer', 'scan'].flatMap((key) => {
      const map = JSON.parse(unzip(readFileSync(join(outDir, `${key}.zip`))).get(`functions/${key}.js.map`)!)
      const bundled = bundledPackages(map.sources)
      expect(bundled).toContain('node_modules/@aws-lambda-powertools/logger') // the map does list node_modules
      return notRuntimeDependencies(bundled, pkg, lock).map((problem) => `${key}.zip: ${problem}`)
    })
    expect(problems).toEqual([])
  })

  it('ships source maps that point at src/, turned on for every function', () => {
    const files = unzip(readFileSync(join(outDir, 'scan.zip')))
    const scan = files.get('functions/scan.js')!
    expect(scan.trimEnd().endsWith('//# sourceMappingURL=scan.js.map')).toBe(true)
    const map = JSON.parse(files.get('functions/scan.js.map')!)
    for (const source of ['src/scan/loop/scanner.ts', 'src/scan/observe/metrics.ts', 'src/store/job-store.ts']) {
      expect(map.sources.some((s: string) => s.endsWith(source) && !s.includes('node_modules'))).toBe(true)
    }
    expect(map.sourcesContent).toBeUndefined() // small maps: stack traces need names and lines, not the sources
    for (const key of ['api', 'scan', 'consumer'])
      expect(fn(key).Environment.Variables.NODE_OPTIONS).toBe('--enable-source-maps')
  })

  it('fires the scan every minute and lets consecutive runs overlap by a few seconds', () => {
    const [, rule] = ofType('AWS::Events::Rule').find(
      ([, r]) => r.Properties.Targets[0].Arn['Fn::GetAtt'][0] === 'ScanLambdaFunction',
    )!
    expect(rule.Properties.ScheduleExpression).toBe('rate(1 minute)')
    expect(rule.Properties.State).toBe('ENABLED')
    const env = fn('scan').Environment.Variables
    const loopMs = fn('scan').Timeout * 1000 - Number(env.SAFETY_MARGIN_MS)
    const overlapMs = loopMs - 60_000
    expect(overlapMs).toBeGreaterThanOrEqual(2_000)
    expect(overlapMs).toBeLessThanOrEqual(15_000)
    expect(Number(env.LEASE_MS)).toBeGreaterThanOrEqual(2 * Number(env.SAFETY_MARGIN_MS))
    // A failed run is not retried by Lambda: the next scheduled run follows within the minute.
    const [, invokeConfig] = ofType('AWS::Lambda::EventInvokeConfig')[0]!
    expect(invokeConfig.Properties.MaximumRetryAttempts).toBe(0)
  })

  it('creates a queue and a DLQ per target, with redrive, 1 MiB messages and 6 x the consumer timeout', () => {
    const queues = queuesOf(fn('scan').Environment.Variables)
    expect([...queues.keys()]).toEqual(['orders', 'emails', 'webhooks'])
    const consumerTimeout = fn('consumer').Timeout
    for (const [name, logicalId] of queues) {
      const q = resources[logicalId]!.Properties
      expect(q.QueueName).toBe(`serverless-delay-queue-prod-${name}`)
      expect(q.MaximumMessageSize).toBe(1_048_576)
      expect(q.VisibilityTimeout).toBeGreaterThanOrEqual(6 * consumerTimeout)
      expect(q.RedrivePolicy.maxReceiveCount).toBeGreaterThanOrEqual(1)
      const dlqId = q.RedrivePolicy.deadLetterTargetArn['Fn::GetAtt'][0]
      expect(resources[dlqId]).toMatchObject({
        Type: 'AWS::SQS::Queue',
        Properties: { QueueName: `serverless-delay-queue-prod-${name}-dlq`, MaximumMessageSize: 1_048_576 },
      })
    }
    expect(ofType('AWS::SQS::Queue')).toHaveLength(2 * queues.size)
  })

  it('keeps every queue and DLQ when the stack deletes or replaces it, and refuses requests to them without TLS', () => {
    const queueIds = ofType('AWS::SQS::Queue').map(([id]) => id)
    expect(queueIds).toHaveLength(6)
    for (const id of queueIds) {
      // a renamed target or `serverless remove` leaves the queue with its messages
      expect(resources[id]).toMatchObject({ DeletionPolicy: 'Retain', UpdateReplacePolicy: 'Retain' })
      expect(resources[`${id}Policy`]).toEqual({
        Type: 'AWS::SQS::QueuePolicy',
        Properties: {
          Queues: [{ Ref: id }],
          PolicyDocument: {
            Version: '2012-10-17',
            Statement: [
              {
                Sid: 'DenyWithoutTls',
                Effect: 'Deny',
                Principal: '*',
                Action: 'sqs:*',
                Resource: getAtt(id),
                Condition: { Bool: { 'aws:SecureTransport': 'false' } },
              },
            ],
          },
        },
      })
    }
    expect(ofType('AWS::SQS::QueuePolicy')).toHaveLength(queueIds.length)
  })

  it("exports the API's URL and id and each target queue's and DLQ's URL and ARN as <service>-<stage>-...", () => {
    const exported = (name: string) =>
      Object.values<Json>(template.Outputs).find((o) => o.Export?.Name === `serverless-delay-queue-prod-${name}`)?.Value
    expect(exported('HttpApiId')).toEqual({ Ref: 'HttpApi' })
    expect(JSON.stringify(exported('HttpApiUrl'))).toContain('execute-api')
    // The Scheduler-compatible API: the HTTP API's address under /scheduler (docs/scheduler-api.md).
    expect(exported('SchedulerApiUrl')['Fn::Join'][1]).toEqual(
      expect.arrayContaining([{ Ref: 'HttpApi' }, '.execute-api.', '/scheduler']),
    )
    for (const [, logicalId] of queuesOf(fn('scan').Environment.Variables)) {
      const dlqId = resources[logicalId]!.Properties.RedrivePolicy.deadLetterTargetArn['Fn::GetAtt'][0]
      expect(exported(`${logicalId}Url`)).toEqual({ Ref: logicalId })
      expect(exported(`${logicalId}Arn`)).toEqual(getAtt(logicalId))
      expect(exported(`${dlqId}Url`)).toEqual({ Ref: dlqId })
      expect(exported(`${dlqId}Arn`)).toEqual(getAtt(dlqId))
    }
  })

  it('lets the scan send to the target queues only, the API touch no queue, the consumer read its own', () => {
    const targets = [...queuesOf(fn('scan').Environment.Variables).values()]
    const send = statements('ScanRole').filter((s) => asList<string>(s.Action).some((a) => a.startsWith('sqs:')))
    expect(send).toHaveLength(1)
    expect(send[0]).toMatchObject({ Effect: 'Allow', Action: 'sqs:SendMessage' })
    expect(asList(send[0]!.Resource)).toEqual(targets.map(getAtt)) // never a DLQ, never "*"

    expect(sqsActions('ApiRole')).toEqual([])
    // Continuous mode (the default): the API never starts the scan function, so it may not invoke anything.
    expect(resources.ApiStartsScanPolicy).toBeUndefined()
    expect(actionsOn('lambda:', 'ApiRole')).toEqual([])
    expect(fn('api').Environment.Variables.SCAN_MODE).toBe('continuous')
    // Fan-out: the scan role may start scan workers, invokes of the scan function itself, and nothing more.
    expect(resources.ScanStartsWorkersPolicy!.Properties).toMatchObject({
      Roles: [{ Ref: 'ScanRole' }],
      PolicyDocument: {
        Statement: [{ Effect: 'Allow', Action: 'lambda:InvokeFunction', Resource: getAtt('ScanLambdaFunction') }],
      },
    })
    expect(actionsOn('lambda:', 'ScanRole')).toEqual([])
    expect(fn('scan').Environment.Variables.SCAN_MAX_WORKERS).toBe('4')

    const [, mapping] = ofType('AWS::Lambda::EventSourceMapping').find(
      ([, m]) => m.Properties.FunctionName['Fn::GetAtt'][0] === 'ConsumerLambdaFunction',
    )!
    expect(mapping.Properties.FunctionResponseTypes).toEqual(['ReportBatchItemFailures'])
    const consumed = mapping.Properties.EventSourceArn
    expect(consumed).toEqual(getAtt(targets[0]!))
    expect(sqsActions('ConsumerRole').sort()).toEqual([
      'sqs:ChangeMessageVisibility',
      'sqs:DeleteMessage',
      'sqs:GetQueueAttributes',
      'sqs:ReceiveMessage',
    ])
    for (const s of statements('ConsumerRole').filter((s) =>
      asList<string>(s.Action).some((a) => a.startsWith('sqs:')),
    )) {
      expect(asList(s.Resource)).toEqual([consumed])
    }
    // Logs: each role writes to its own function's log group only.
    for (const [role, group] of [
      ['ApiRole', 'ApiLogGroup'],
      ['ScanRole', 'ScanLogGroup'],
      ['ConsumerRole', 'ConsumerLogGroup'],
    ]) {
      const logs = statements(role!).find((s) => asList<string>(s.Action).includes('logs:PutLogEvents'))!
      expect(logs.Resource).toEqual(getAtt(group!))
    }
  })

  it('lets the HTTP forwarder read its own queue, copy to its DLQ only, read its secret, and nothing else', () => {
    const [, mapping] = ofType('AWS::Lambda::EventSourceMapping').find(
      ([, m]) => m.Properties.FunctionName['Fn::GetAtt'][0] === 'ForwarderLambdaFunction',
    )!
    expect(mapping.Properties.EventSourceArn).toEqual(getAtt('TargetQueueWebhooks'))
    expect(mapping.Properties.FunctionResponseTypes).toEqual(['ReportBatchItemFailures'])
    const sqsStatements = statements('ForwarderRole').filter((s) =>
      asList<string>(s.Action).some((a) => a.startsWith('sqs:')),
    )
    expect(sqsStatements.map((s) => [asList<string>(s.Action).sort(), s.Resource])).toEqual([
      [
        ['sqs:ChangeMessageVisibility', 'sqs:DeleteMessage', 'sqs:GetQueueAttributes', 'sqs:ReceiveMessage'],
        getAtt('TargetQueueWebhooks'),
      ],
      [['sqs:SendMessage'], getAtt('TargetQueueWebhooksDlq')],
    ])
    expect(actionsOn('ssm:', 'ForwarderRole')).toEqual(['ssm:GetParameter'])
    expect(actionsOn('secretsmanager:', 'ForwarderRole')).toEqual([])
    expect(actionsOn('lambda:', 'ForwarderRole')).toEqual([])
    const env = deployedWith(template, fn('forwarder').Environment.Variables)
    expect(env).toMatchObject({
      WEBHOOK_SECRET_PARAMETER: '/serverless-delay-queue/prod/webhook-secrets',
      WEBHOOK_SECRET_ID: '',
      WEBHOOK_SECRETS: '',
      HTTP_ALLOW_LOOPBACK: 'false',
      DEPLOY_STAGE: 'prod',
      HTTP_TARGETS: 'webhooks',
    })
    expect(fn('api').Environment.Variables).toMatchObject({ HTTP_TARGETS: 'webhooks', DEPLOY_STAGE: 'prod' })
    const logs = statements('ForwarderRole').find((s) => asList<string>(s.Action).includes('logs:PutLogEvents'))!
    expect(logs.Resource).toEqual(getAtt('ForwarderLogGroup'))
  })

  it('lets the HTTP forwarder read the Secrets Manager secret WebhookSecretId names, that one only, in place of SSM', () => {
    // prepare: the stack parameter as a deploy sets it (--param=webhookSecretId=... or WEBHOOK_SECRET_ID)
    const arn = 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:sdq/webhooks-AbC123'
    const given = { WebhookSecretId: arn }
    // act
    const granted = deployedWith(template, resources.ForwarderRole!.Properties.Policies as Json[], given).flatMap(
      (p) => p.PolicyDocument.Statement,
    )
    const env = deployedWith(template, fn('forwarder').Environment.Variables, given)
    // assess: GetSecretValue on that ARN and nothing else of Secrets Manager; one secret source; the SSM grant stays
    expect(granted.filter((s) => asList<string>(s.Action).some((a) => a.startsWith('secretsmanager:')))).toEqual([
      { Effect: 'Allow', Action: 'secretsmanager:GetSecretValue', Resource: arn },
    ])
    expect(env).toMatchObject({ WEBHOOK_SECRET_ID: arn, WEBHOOK_SECRET_PARAMETER: '' })
    expect(actionsOn('ssm:', 'ForwarderRole')).toEqual(['ssm:GetParameter'])
    // a name or a partial ARN would be granted nothing (IAM matches the full ARN): the stack refuses them
    const pattern = new RegExp(template.Parameters.WebhookSecretId.AllowedPattern)
    expect(
      [arn, '', 'sdq/webhooks', 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:sdq/webhooks'].map((v) =>
        pattern.test(v),
      ),
    ).toEqual([true, true, false, false])
  })

  it('alarms on late, dead-lettered and DLQ-ed jobs, a nearly full Redis and scan errors, notifying the optional topic', () => {
    const alarms = Object.fromEntries(ofType('AWS::CloudWatch::Alarm').map(([id, r]) => [id, r.Properties]))
    const service = fn('scan').Environment.Variables.POWERTOOLS_SERVICE_NAME
    expect(service).toBe('serverless-delay-queue-prod')
    expect(fn('api').Environment.Variables.POWERTOOLS_SERVICE_NAME).toBe(service)
    const own = { Namespace: 'DelayQueue', Dimensions: [{ Name: 'service', Value: service }] }
    expect(alarms.OldestDueAgeAlarm).toMatchObject({
      ...own,
      MetricName: 'OldestDueAgeMs',
      Statistic: 'Maximum',
      Period: 60,
      EvaluationPeriods: 3,
      DatapointsToAlarm: 3,
      Threshold: 60_000,
      ComparisonOperator: 'GreaterThanThreshold',
      TreatMissingData: 'breaching',
    })
    expect(alarms.DeadLetteredAlarm).toMatchObject({
      ...own,
      MetricName: 'DeadLettered',
      Statistic: 'Sum',
      Threshold: 0,
      ComparisonOperator: 'GreaterThanThreshold',
    })
    expect(alarms.ScanErrorsAlarm).toMatchObject({
      Namespace: 'AWS/Lambda',
      MetricName: 'Errors',
      Dimensions: [{ Name: 'FunctionName', Value: { Ref: 'ScanLambdaFunction' } }],
      Threshold: 0,
    })
    // one per target queue's DLQ
    const dlqs = ofType('AWS::SQS::Queue')
      .filter(([, q]) => q.Properties.Tags.some((t: Json) => t.Value === 'dlq'))
      .map(([id]) => id)
    expect(dlqs).toHaveLength(3)
    for (const dlq of dlqs) {
      expect(alarms[`${dlq}Alarm`]).toMatchObject({
        Namespace: 'AWS/SQS',
        MetricName: 'ApproximateNumberOfMessagesVisible',
        Dimensions: [{ Name: 'QueueName', Value: { 'Fn::GetAtt': [dlq, 'QueueName'] } }],
        Threshold: 0,
      })
    }
    // Redis near full (new jobs refused at 100%): the scan's warning threshold, REDIS_MEMORY_WARN_PERCENT (80)
    expect(alarms.RedisMemoryAlarm).toMatchObject({
      ...own,
      MetricName: 'RedisMemoryUsedPercent',
      Statistic: 'Maximum',
      EvaluationPeriods: 3,
      Threshold: 80,
      ComparisonOperator: 'GreaterThanThreshold',
      TreatMissingData: 'notBreaching',
    })
    expect(Object.keys(alarms)).toHaveLength(4 + dlqs.length)
    // each notifies the topic when one is given, and needs nothing to package without one
    const topic = { 'Fn::If': ['HasAlarmTopic', [{ Ref: 'AlarmTopicArn' }], { Ref: 'AWS::NoValue' }] }
    for (const a of Object.values(alarms)) {
      expect(a.AlarmActions).toEqual(topic)
      expect(a.OKActions).toEqual(topic)
      expect(a.AlarmDescription).toContain('docs/operations.md')
    }
    expect(template.Parameters.AlarmTopicArn).toMatchObject({ Type: 'String', Default: '' })
    expect(template.Conditions.HasAlarmTopic).toEqual({ 'Fn::Not': [{ 'Fn::Equals': [{ Ref: 'AlarmTopicArn' }, ''] }] })
  })

  it('draws the main graphs on a CloudWatch dashboard, with every alarm', () => {
    const [[, dashboard]] = ofType('AWS::CloudWatch::Dashboard') as [[string, Json]]
    const body = JSON.parse(dashboard.Properties.DashboardBody['Fn::Sub'])
    const text = JSON.stringify(body)
    for (const metric of [
      'Dispatched',
      'Pending',
      'DispatchLatenessP99',
      'OldestDueAgeMs',
      'DeadLettered',
      'AWS/ApiGateway',
      '5xx',
      'RedisMemoryUsedPercent',
      'ScanCpuSharePercent',
      'SqsRequests',
    ]) {
      expect(text).toContain(metric)
    }
    expect(text).toContain('dsp / req')
    expect(text).not.toContain('ApiRequests')
    expect(text).toContain('service=\\"serverless-delay-queue-prod\\"')
    const alarmWidget = body.widgets.find((w: Json) => w.type === 'alarm')
    expect(alarmWidget.properties.alarms).toHaveLength(ofType('AWS::CloudWatch::Alarm').length)
  })

  it('writes HTTP API access logs with the request id, route, status and latency', () => {
    const [[, stage]] = ofType('AWS::ApiGatewayV2::Stage') as [[string, Json]]
    const settings = stage.Properties.AccessLogSettings
    expect(settings.DestinationArn).toEqual(getAtt('HttpApiLogGroup'))
    expect(Object.keys(JSON.parse(settings.Format))).toEqual(
      expect.arrayContaining(['requestId', 'routeKey', 'status', 'latencyMs']),
    )
  })

  it("throttles the HTTP API stage's default route: 500 requests a second, bursts of 1,000", () => {
    const [[, stage]] = ofType('AWS::ApiGatewayV2::Stage') as [[string, Json]]
    expect(stage.Properties.DefaultRouteSettings).toEqual({
      ThrottlingRateLimit: { Ref: 'ApiThrottleRate' },
      ThrottlingBurstLimit: { Ref: 'ApiThrottleBurst' },
    })
    expect(template.Parameters.ApiThrottleRate).toMatchObject({ Type: 'Number', Default: 500, MinValue: 1 })
    expect(template.Parameters.ApiThrottleBurst).toMatchObject({ Type: 'Number', Default: 1000, MinValue: 1 })
  })

  it('puts IAM authorization on every API route', () => {
    const routes = ofType('AWS::ApiGatewayV2::Route').map(([, r]) => r.Properties)
    // Every route the API function's router serves (src/api/router.ts), and no other: a route missing here answers 404
    // from API Gateway before the function runs.
    expect(routes.map((r) => r.RouteKey).sort()).toEqual(
      [
        // The Scheduler-compatible API's own base URL (docs/scheduler-api.md), behind the same authorizer.
        'ANY /scheduler/{proxy+}',
        ...ROUTES.map((r) => r.key),
      ].sort(),
    )
    for (const r of routes) expect(r.AuthorizationType).toBe('AWS_IAM')
    expect(ofType('AWS::Lambda::Url')).toEqual([]) // no second way in
  })
})

describe('serverless package --stage prod: the defaults', () => {
  let packaged: Json
  beforeAll(async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sdq-package-'))
    try {
      await sls(['package', '--stage', 'prod', '--package', dir])
      packaged = JSON.parse(readFileSync(join(dir, 'cloudformation-template-update-stack.json'), 'utf8'))
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  }, 180_000)

  it('serves the API through a Function URL with AWS_IAM auth, scans on demand, and has no dashboard', () => {
    const res: Record<string, Json> = packaged.Resources
    const types = Object.values(res).map((r) => r.Type)
    expect(res.ApiLambdaFunctionUrl!.Properties.AuthType).toBe('AWS_IAM')
    expect(types).not.toContain('AWS::ApiGatewayV2::Api')
    expect(types).not.toContain('AWS::CloudWatch::Dashboard')
    expect(res.ScanLambdaFunction!.Properties.Environment.Variables.SCAN_MODE).toBe('on-demand')
    expect(res.ApiStartsScanPolicy!.Properties.PolicyDocument.Statement).toEqual([
      { Effect: 'Allow', Action: 'lambda:InvokeFunction', Resource: getAtt('ScanLambdaFunction') },
    ])
  })

  it("drops Lambda's START/END/REPORT lines of the API function only (JSON log format, system log level WARN)", () => {
    const res: Record<string, Json> = packaged.Resources
    expect(res.ApiLambdaFunction!.Properties.LoggingConfig).toEqual({ LogFormat: 'JSON', SystemLogLevel: 'WARN' })
    expect(res.ScanLambdaFunction!.Properties.LoggingConfig).toBeUndefined()
    expect(res.ConsumerLambdaFunction!.Properties.LoggingConfig).toBeUndefined()
  })
})

describe('serverless package --param=scanMode=on-demand --param=apiEndpoint=functionUrl --param=egress=ipv6', () => {
  let dir: string
  let res: Record<string, Json>
  let outputs: Record<string, Json>
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'sdq-package-'))
    await sls([
      'package',
      '--stage',
      'prod',
      '--package',
      dir,
      '--param=scanMode=on-demand',
      '--param=apiEndpoint=functionUrl',
      '--param=egress=ipv6',
    ])
    const packaged = JSON.parse(readFileSync(join(dir, 'cloudformation-template-update-stack.json'), 'utf8'))
    res = packaged.Resources
    outputs = packaged.Outputs
  }, 180_000)
  afterAll(() => {
    if (dir) rmSync(dir, { recursive: true, force: true })
  })

  it('lets the API (and the Scheduler-compatible API) invoke the scan function, and nothing else, in on-demand mode', () => {
    const env = res.ApiLambdaFunction!.Properties.Environment.Variables
    expect(env.SCAN_MODE).toBe('on-demand')
    expect(env.SCAN_FUNCTION_NAME).toBe(res.ScanLambdaFunction!.Properties.FunctionName)
    expect(res.SchedulerLambdaFunction!.Properties.Environment.Variables.SCAN_MODE).toBe('on-demand')
    expect(res.ApiStartsScanPolicy!.Properties).toMatchObject({
      Roles: [{ Ref: 'ApiRole' }, { Ref: 'SchedulerRole' }],
      PolicyDocument: {
        Statement: [{ Effect: 'Allow', Action: 'lambda:InvokeFunction', Resource: getAtt('ScanLambdaFunction') }],
      },
    })
    expect(res.ScanLambdaFunction!.Properties.Environment.Variables.SCAN_MODE).toBe('on-demand')
  })

  it('reaches SQS and Lambda over IPv6 (dual-stack ENIs and the SDK on dual-stack endpoints) with egress=ipv6', () => {
    const functions = Object.values(res).filter((r) => r.Type === 'AWS::Lambda::Function')
    expect(functions).toHaveLength(5)
    for (const f of functions) {
      expect(f.Properties.VpcConfig.Ipv6AllowedForDualStack).toBe(true)
      expect(f.Properties.Environment.Variables.AWS_USE_DUALSTACK_ENDPOINT).toBe('true')
    }
  })

  it('serves the API through a Function URL with AWS_IAM auth and no HTTP API', () => {
    const urls = Object.values(res).filter((r) => r.Type === 'AWS::Lambda::Url')
    // in any order: the template's resource order follows osls's, not a promise
    expect(urls).toHaveLength(2)
    expect(urls).toEqual(
      expect.arrayContaining([
        {
          Type: 'AWS::Lambda::Url',
          Properties: { AuthType: 'AWS_IAM', TargetFunctionArn: getAtt('ApiLambdaFunction') },
        },
        {
          Type: 'AWS::Lambda::Url',
          Properties: { AuthType: 'AWS_IAM', TargetFunctionArn: getAtt('SchedulerLambdaFunction') },
        },
      ]),
    )
    expect(Object.values(res).filter((r) => r.Type.startsWith('AWS::ApiGatewayV2::'))).toEqual([])
    // Its address is exported in place of the HTTP API's.
    expect(outputs.ApiLambdaFunctionUrl).toMatchObject({
      Value: { 'Fn::GetAtt': ['ApiLambdaFunctionUrl', 'FunctionUrl'] },
      Export: { Name: 'serverless-delay-queue-prod-ApiFunctionUrl' },
    })
    expect(outputs.HttpApiUrl).toBeUndefined()
    expect(outputs.SchedulerApiUrl).toMatchObject({
      Value: { 'Fn::GetAtt': ['SchedulerLambdaFunctionUrl', 'FunctionUrl'] },
      Export: { Name: 'serverless-delay-queue-prod-SchedulerApiUrl' },
    })
    // and what a caller's role is granted invoke rights on, beside each URL
    expect(outputs.ApiFunctionArn).toMatchObject({ Value: { 'Fn::GetAtt': ['ApiLambdaFunction', 'Arn'] } })
    expect(outputs.SchedulerFunctionArn).toMatchObject({
      Value: { 'Fn::GetAtt': ['SchedulerLambdaFunction', 'Arn'] },
      Export: { Name: 'serverless-delay-queue-prod-SchedulerFunctionArn' },
    })
  })
})

describe('serverless.yml for the local stage and with parameters', () => {
  it('opens the API and turns the schedule off for serverless-offline (local/dev.ts runs the scan)', async () => {
    const config = await printConfig('local')
    for (const event of config.functions.api.events) expect(event.httpApi.authorizer).toBe('')
    expect(config.functions.scan.events[0].schedule.enabled).toBe(false)
    expect(config.functions.api.environment.REDIS_URL).toBe('redis://127.0.0.1:6379')
    // serverless-offline resolves no CloudFormation condition: the forwarder's settings are plain strings there
    for (const value of Object.values(config.functions.forwarder.environment)) expect(typeof value).toBe('string')
  }, 120_000)

  it('derives the visibility timeout from the consumer timeout and takes maxReceiveCount as a parameter', async () => {
    const config = await printConfig('prod', '--param=consumerTimeout=60', '--param=maxReceiveCount=9')
    const queue = config.resources.Resources.TargetQueueOrders.Properties
    expect(queue.VisibilityTimeout).toBe(360)
    expect(queue.RedrivePolicy.maxReceiveCount).toBe(9)
  }, 120_000)

  it("takes the forwarder's Secrets Manager secret as the webhookSecretId parameter", async () => {
    const arn = 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:sdq/webhooks-AbC123'
    const config = await printConfig('prod', `--param=webhookSecretId=${arn}`)
    expect(config.resources.Parameters.WebhookSecretId.Default).toBe(arn)
  }, 120_000)

  it('takes the SNS topic of the alarms as the alarmTopicArn parameter', async () => {
    const topic = 'arn:aws:sns:us-east-1:123456789012:delay-queue-ops'
    const config = await printConfig('prod', `--param=alarmTopicArn=${topic}`)
    const parameters = config.resources.Parameters
    expect(parameters.AlarmTopicArn.Default).toBe(topic)
  }, 120_000)

  it('takes the HTTP API throttling as the apiThrottleRate and apiThrottleBurst parameters', async () => {
    const config = await printConfig(
      'prod',
      '--param=apiEndpoint=httpApi',
      '--param=apiThrottleRate=50',
      '--param=apiThrottleBurst=20',
    )
    expect(config.resources.Parameters.ApiThrottleRate.Default).toBe('50')
    expect(config.resources.Parameters.ApiThrottleBurst.Default).toBe('20')
  }, 120_000)

  it('leaves the dashboard out with dashboard=false and keeps every alarm', async () => {
    const config = await printConfig('prod', '--param=dashboard=false')
    const types = Object.values<Json>(config.resources.Resources).map((r) => r.Type)
    expect(types).not.toContain('AWS::CloudWatch::Dashboard')
    expect(types.filter((t) => t === 'AWS::CloudWatch::Alarm').length).toBe(ofType('AWS::CloudWatch::Alarm').length)
  }, 120_000)

  // CloudFormation's own substitution, written out as text: not a JavaScript template.
  const REGION_VAR = ['$', '{AWS::Region}'].join('')
  it('creates the SQS and Lambda endpoints (fan-out and on-demand starts invoke) in one subnet per AZ with createEndpoints=true, refuses it with egress=ipv6', async () => {
    const resources = async (...extra: string[]) =>
      (await printConfig('prod', '--param=createEndpoints=true', ...extra)).resources as Json
    const endpoints = (r: Json) =>
      Object.values<Json>(r.Resources)
        .filter((x) => x.Type === 'AWS::EC2::VPCEndpoint')
        .map((x) => String(x.Properties.ServiceName['Fn::Sub']).replace(REGION_VAR, '<region>'))
    const continuous = await resources()
    const onDemand = await resources('--param=scanMode=on-demand')
    // continuous mode: the scan run starts scan workers (SCAN_MAX_WORKERS, 4) through Lambda's Invoke API
    expect(endpoints(continuous).sort()).toEqual(['com.amazonaws.<region>.lambda', 'com.amazonaws.<region>.sqs'])
    expect(endpoints(onDemand).sort()).toEqual(['com.amazonaws.<region>.lambda', 'com.amazonaws.<region>.sqs'])
    for (const id of ['SqsVpcEndpoint', 'LambdaVpcEndpoint'])
      expect(continuous.Resources[id].Properties).toMatchObject({
        VpcEndpointType: 'Interface',
        SubnetIds: { Ref: 'EndpointSubnetIds' },
        PrivateDnsEnabled: true,
      })
    expect(continuous.Parameters.VpcId.Default).toBe('/serverless-delay-queue/prod/vpc-id')
    // one subnet per AZ: the functions' list by default, or a list of its own
    expect(continuous.Parameters.EndpointSubnetIds).toMatchObject({
      Type: 'AWS::SSM::Parameter::Value<List<AWS::EC2::Subnet::Id>>',
      Default: '/serverless-delay-queue/prod/subnet-ids',
    })
    const ownSubnets = await resources('--param=endpointSubnetIdsSsm=/net/endpoint-subnet-ids')
    expect(ownSubnets.Parameters.EndpointSubnetIds.Default).toBe('/net/endpoint-subnet-ids')
    expect(endpoints((await printConfig('prod')).resources)).toEqual([])
    await expect(resources('--param=egress=ipv6')).rejects.toThrow(/createEndpoints=true needs egress=endpoints/)
  }, 120_000)
})
