// osls plugin: the alarms and the CloudWatch dashboard of docs/operations.md, as one `resources` entry:
//   ${monitoring:resources}
// They read the scan function's EMF metrics (namespace DelayQueue, dimension service = the stack's
// POWERTOOLS_SERVICE_NAME), the scan function's Lambda errors, each target queue's DLQ depth, and the API's requests,
// 4xx, 5xx and latency as AWS publishes them for free: AWS/ApiGateway per ApiId for the HTTP API, AWS/Lambda Url*
// per FunctionName for a Function URL (serverless param `apiEndpoint`). `--param="dashboard=false"` leaves the
// dashboard out ($3 a month; the alarms stay). The DLQs are found
// in ${targetQueues:resources} (tag sdq:role = dlq), so this file never repeats the queue naming rules.
// Every alarm notifies the optional SNS topic of the AlarmTopicArn parameter (serverless param `alarmTopicArn`).
// CommonJS with erasable types only, like deploy/target-queues.ts.

interface MonitoringArgs {
  resolveConfigurationProperty: (path: string[]) => Promise<unknown>
  resolveVariable: (variable: string) => Promise<unknown>
}

// biome-ignore lint/suspicious/noExplicitAny: CloudFormation resources as plain JSON, written field by field
type CfnNode = Record<string, any>

const NAMESPACE = 'DelayQueue'
/** OldestDueAgeMs above this for 3 minutes: jobs wait for a scanner. */
const OLDEST_DUE_AGE_MS = 60_000

/** Fires on any occurrence within a minute: a dead-lettered job, a failed scan. */
const ANY_IN_A_MINUTE = {
  Statistic: 'Sum',
  Period: 60,
  EvaluationPeriods: 1,
  Threshold: 0,
  ComparisonOperator: 'GreaterThanThreshold',
  TreatMissingData: 'notBreaching',
}

function alarm(name: string, description: string, props: CfnNode): CfnNode {
  return {
    Type: 'AWS::CloudWatch::Alarm',
    Properties: {
      AlarmName: name,
      AlarmDescription: `${description} Runbook: docs/operations.md`,
      ActionsEnabled: true,
      AlarmActions: { 'Fn::If': ['HasAlarmTopic', [{ Ref: 'AlarmTopicArn' }], { Ref: 'AWS::NoValue' }] },
      OKActions: { 'Fn::If': ['HasAlarmTopic', [{ Ref: 'AlarmTopicArn' }], { Ref: 'AWS::NoValue' }] },
      ...props,
    },
  }
}

function alarms(
  prefix: string,
  service: string,
  dlqs: { logicalId: string; target: string }[],
  memoryWarnPercent: number,
): CfnNode {
  const own = (metric: string) => ({
    Namespace: NAMESPACE,
    MetricName: metric,
    Dimensions: [{ Name: 'service', Value: service }],
  })
  const resources: CfnNode = {
    OldestDueAgeAlarm: alarm(`${prefix}-oldest-due-age`, 'Due jobs have waited over 60 s for 3 minutes.', {
      ...own('OldestDueAgeMs'),
      Statistic: 'Maximum',
      Period: 60,
      EvaluationPeriods: 3,
      DatapointsToAlarm: 3,
      Threshold: OLDEST_DUE_AGE_MS,
      ComparisonOperator: 'GreaterThanThreshold',
      // The scan function reports every 10 s while it runs: no data at all means no scanner.
      TreatMissingData: 'breaching',
    }),
    DeadLetteredAlarm: alarm(
      `${prefix}-dead-lettered`,
      'SQS refused jobs on every attempt: they are in the dead set.',
      {
        ...own('DeadLettered'),
        ...ANY_IN_A_MINUTE,
      },
    ),
    // The same threshold as the scan's log warning (REDIS_MEMORY_WARN_PERCENT): at 100% new jobs are refused (507).
    RedisMemoryAlarm: alarm(
      `${prefix}-redis-memory`,
      `Redis has been over ${memoryWarnPercent}% of its maxmemory for 3 minutes: at 100% new jobs are refused.`,
      {
        ...own('RedisMemoryUsedPercent'),
        Statistic: 'Maximum',
        Period: 60,
        EvaluationPeriods: 3,
        DatapointsToAlarm: 3,
        Threshold: memoryWarnPercent,
        ComparisonOperator: 'GreaterThanThreshold',
        // No reading (INFO refused by an ACL, no maxmemory, no scan running) is not a full Redis.
        TreatMissingData: 'notBreaching',
      },
    ),
    ScanErrorsAlarm: alarm(`${prefix}-scan-errors`, 'The scan function failed (error or timeout).', {
      Namespace: 'AWS/Lambda',
      MetricName: 'Errors',
      Dimensions: [{ Name: 'FunctionName', Value: { Ref: 'ScanLambdaFunction' } }],
      ...ANY_IN_A_MINUTE,
    }),
  }
  for (const dlq of dlqs) {
    resources[`${dlq.logicalId}Alarm`] = alarm(
      `${prefix}-${dlq.target.replace(/\.fifo$/, '')}-dlq-not-empty`,
      `Messages in the DLQ of target queue "${dlq.target}": a consumer gave up on jobs.`,
      {
        Namespace: 'AWS/SQS',
        MetricName: 'ApproximateNumberOfMessagesVisible',
        Dimensions: [{ Name: 'QueueName', Value: { 'Fn::GetAtt': [dlq.logicalId, 'QueueName'] } }],
        Statistic: 'Maximum',
        Period: 300,
        EvaluationPeriods: 1,
        Threshold: 0,
        ComparisonOperator: 'GreaterThanThreshold',
        TreatMissingData: 'notBreaching',
      },
    )
  }
  return resources
}

/**
 * A dashboard metric of one namespace and dimension, as a widget lists it:
 * [namespace, metric, dimension, value, { stat, label, yAxis }].
 */
const metricOf =
  (namespace: string, dimension: string, value: string) =>
  (metric: string, stat: string, label: string, yAxis = 'left') => [
    namespace,
    metric,
    dimension,
    value,
    { stat, label, yAxis },
  ]

/** The API's free metrics: API Gateway's for the HTTP API, Lambda's Function URL metrics otherwise. */
function apiMetrics(apiEndpoint: string) {
  if (apiEndpoint === 'functionUrl') {
    const url = metricOf('AWS/Lambda', 'FunctionName', '${ApiLambdaFunction}')
    return {
      requests: [
        url('UrlRequestCount', 'Sum', 'requests'),
        url('UrlRequestLatency', 'p99', 'p99 latency (ms)', 'right'),
      ],
      errors: [url('Url4xxCount', 'Sum', '4xx'), url('Url5xxCount', 'Sum', '5xx')],
    }
  }
  const api = metricOf('AWS/ApiGateway', 'ApiId', '${HttpApi}')
  return {
    requests: [api('Count', 'Sum', 'requests'), api('Latency', 'p99', 'p99 latency (ms)', 'right')],
    errors: [api('4xx', 'Sum', '4xx'), api('5xx', 'Sum', '5xx')],
  }
}

/** The dashboard body: JSON text with ${AWS::Region} and the functions' and API's names substituted (Fn::Sub). */
function dashboardBody(service: string, alarmIds: string[], apiEndpoint: string): CfnNode {
  const search = (dims: string, metric: string, stat: string) =>
    `SEARCH('{${NAMESPACE},${dims}} MetricName="${metric}" service="${service}"', '${stat}', 60)`
  const graph = (title: string, y: number, x: number, metrics: unknown[], extra: CfnNode = {}) => ({
    type: 'metric',
    x,
    y,
    width: 12,
    height: 6,
    properties: { title, region: '${AWS::Region}', view: 'timeSeries', period: 60, metrics, ...extra },
  })
  const expr = (expression: string, label: string, id: string) => [{ expression, label, id }]
  const own = (metric: string, stat: string, label: string) => [NAMESPACE, metric, 'service', service, { stat, label }]
  const api = apiMetrics(apiEndpoint)
  const widgets = [
    {
      type: 'alarm',
      x: 0,
      y: 0,
      width: 24,
      height: 3,
      properties: { title: 'Alarms', alarms: alarmIds.map((id) => `\${${id}.Arn}`) },
    },
    graph('Jobs dispatched per target queue', 3, 0, [expr(search('service,queue', 'Dispatched', 'Sum'), '', 'd')]),
    graph('Pending jobs per target queue', 3, 12, [expr(search('service,queue', 'Pending', 'Maximum'), '', 'p')]),
    graph('Dispatch lateness (ms)', 9, 0, [
      own('DispatchLatenessP50', 'Maximum', 'p50'),
      own('DispatchLatenessP99', 'Maximum', 'p99'),
      own('DispatchLatenessMax', 'Maximum', 'max'),
    ]),
    graph('Oldest due job waiting (ms)', 9, 12, [own('OldestDueAgeMs', 'Maximum', 'oldest due age')], {
      annotations: { horizontal: [{ value: OLDEST_DUE_AGE_MS, label: 'alarm' }] },
    }),
    graph('Released and dead-lettered jobs', 15, 0, [
      expr(search('service,queue', 'Released', 'Sum'), '', 'r'),
      expr(search('service,queue', 'DeadLettered', 'Sum'), '', 'x'),
    ]),
    graph('Scan function', 15, 12, [
      own('ScanActiveMs', 'Sum', 'active ms'),
      own('RedisErrors', 'Sum', 'Redis errors'),
      ['AWS/Lambda', 'Errors', 'FunctionName', '${ScanLambdaFunction}', { stat: 'Sum', label: 'Lambda errors' }],
    ]),
    graph('Redis memory used (% of maxmemory, fullest primary)', 27, 0, [
      own('RedisMemoryUsedPercent', 'Maximum', 'used %'),
    ]),
    // Above ~40% a steady stream gets throttled by Lambda's CPU quota and turns late: more scanMemory (docs/cost.md).
    graph('Scan function CPU (% of its share)', 27, 12, [own('ScanCpuSharePercent', 'Maximum', 'CPU % of share')], {
      annotations: { horizontal: [{ value: 40, label: 'size up above' }] },
    }),
    // SQS bills requests: jobs per request is what DISPATCH_WINDOW_MS raises (docs/cost.md "The dispatch window").
    // The jobs are the sum over the queues: the scan publishes no total of its own (one metric less to pay for).
    graph('SQS requests, and jobs per request', 33, 0, [
      [NAMESPACE, 'SqsRequests', 'service', service, { stat: 'Sum', label: 'SendMessageBatch requests', id: 'req' }],
      [{ expression: `SUM(${search('service,queue', 'Dispatched', 'Sum')})`, id: 'dsp', visible: false }],
      [{ expression: 'dsp / req', label: 'jobs per request', id: 'jpr', yAxis: 'right' }],
    ]),
    graph('API requests and p99 latency', 21, 0, api.requests),
    graph('API 4xx and 5xx answers', 21, 12, api.errors),
  ]
  return { 'Fn::Sub': JSON.stringify({ widgets }) }
}

class ServerlessMonitoring {
  configurationVariablesSources: Record<string, { resolve: (args: MonitoringArgs) => Promise<{ value: unknown }> }>

  constructor() {
    this.configurationVariablesSources = {
      monitoring: {
        resolve: async ({ resolveConfigurationProperty, resolveVariable }) => {
          const prefix = `${await resolveConfigurationProperty(['service'])}-${await resolveVariable('sls:stage')}`
          const env = ((await resolveConfigurationProperty(['provider', 'environment'])) ?? {}) as Record<
            string,
            unknown
          >
          const service = String(env.POWERTOOLS_SERVICE_NAME ?? prefix)
          const queues = (await resolveVariable('targetQueues:resources')) as { Resources: CfnNode }
          const dlqs = Object.entries(queues.Resources)
            .filter(
              ([, r]) =>
                r.Type === 'AWS::SQS::Queue' &&
                r.Properties.Tags.some((t: CfnNode) => t.Key === 'sdq:role' && t.Value === 'dlq'),
            )
            .map(([logicalId, r]) => ({
              logicalId,
              target: String(r.Properties.Tags.find((t: CfnNode) => t.Key === 'sdq:target').Value),
            }))
          const redisEnv = ((await resolveConfigurationProperty(['custom', 'redisEnvironment'])) ?? {}) as Record<
            string,
            unknown
          >
          // The scan's own default (src/config.ts) when the setting is unset or not a number.
          const memoryWarnPercent = Number(redisEnv.REDIS_MEMORY_WARN_PERCENT) || 80
          const Resources = alarms(prefix, service, dlqs, memoryWarnPercent)
          const apiEndpoint = String(await resolveVariable('param:apiEndpoint'))
          if (String(await resolveVariable('param:dashboard')) !== 'false')
            Resources.MonitoringDashboard = {
              Type: 'AWS::CloudWatch::Dashboard',
              Properties: {
                DashboardName: prefix,
                DashboardBody: dashboardBody(service, Object.keys(Resources), apiEndpoint),
              },
            }
          return {
            value: {
              Conditions: { HasAlarmTopic: { 'Fn::Not': [{ 'Fn::Equals': [{ Ref: 'AlarmTopicArn' }, ''] }] } },
              Resources,
            },
          }
        },
      },
    }
  }
}

module.exports = ServerlessMonitoring
