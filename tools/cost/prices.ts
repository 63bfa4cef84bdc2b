// The price table of `npm run cost` (docs/cost.md shows it with the same sources). List prices, US East (N.
// Virginia), as researched in 2026-11; no free tiers unless a line says so. Change them here, nowhere else.
export const PRICES_DATE = '2026-11'

export interface Price {
  usd: number
  unit: string
  source: string
  /** Not checked against the source when the table was dated: verify before relying on it. */
  unverified?: true
}

export const PRICES = {
  lambdaGbSecondArm: {
    usd: 0.0000133334,
    unit: 'Lambda GB-second (arm64)',
    source: 'https://aws.amazon.com/lambda/pricing/',
  },
  lambdaRequest: { usd: 0.2 / 1e6, unit: 'Lambda request', source: 'https://aws.amazon.com/lambda/pricing/' },
  httpApiRequest: {
    usd: 1.0 / 1e6,
    unit: 'API Gateway HTTP API request (first 300M a month)',
    source: 'https://aws.amazon.com/api-gateway/pricing/',
  },
  sqsRequest: {
    usd: 0.4 / 1e6,
    unit: 'SQS request (standard queue; a batch under 64 KB is one)',
    source: 'https://aws.amazon.com/sqs/pricing/',
  },
  valkeyServerlessGbHour: {
    usd: 0.084,
    unit: 'GB-hour stored (ElastiCache Serverless for Valkey, 100 MB minimum)',
    source: 'https://aws.amazon.com/elasticache/pricing/',
  },
  valkeyServerlessEcpu: {
    usd: 0.0023 / 1e6,
    unit: 'ECPU (ElastiCache Serverless for Valkey; 1 ECPU per KB moved)',
    source: 'https://aws.amazon.com/elasticache/pricing/',
  },
  interfaceEndpointHour: {
    usd: 0.01,
    unit: 'interface VPC endpoint-hour per AZ (SQS, and Lambda in on-demand mode, from inside the VPC)',
    source: 'https://aws.amazon.com/privatelink/pricing/',
  },
  interfaceEndpointGb: {
    usd: 0.01,
    unit: 'GB processed by an interface endpoint',
    source: 'https://aws.amazon.com/privatelink/pricing/',
  },
  logsIngestGb: {
    usd: 0.5,
    unit: 'GB of CloudWatch Logs ingested',
    source: 'https://aws.amazon.com/cloudwatch/pricing/',
    unverified: true,
  },
  logsStoredGbMonth: {
    usd: 0.03,
    unit: 'GB-month of CloudWatch Logs stored (billed compressed)',
    source: 'https://aws.amazon.com/cloudwatch/pricing/',
    unverified: true,
  },
  eventBridgeSchedulerInvocation: {
    usd: 1.0 / 1e6,
    unit: 'EventBridge Scheduler invocation, after 14M free a month',
    source: 'https://aws.amazon.com/eventbridge/pricing/',
  },
  stepFunctionsTransition: {
    usd: 0.025 / 1000,
    unit: 'Step Functions state transition (Standard workflows)',
    source: 'https://aws.amazon.com/step-functions/pricing/',
  },
  cloudWatchMetricMonth: {
    usd: 0.3,
    unit: 'CloudWatch custom metric-month (first 10,000; billed per hour in which the metric gets a data point)',
    source: 'https://aws.amazon.com/cloudwatch/pricing/',
  },
  cloudWatchAlarmMonth: {
    usd: 0.1,
    unit: 'CloudWatch standard-resolution alarm-month (per metric it reads)',
    source: 'https://aws.amazon.com/cloudwatch/pricing/',
  },
  cloudWatchDashboardMonth: {
    usd: 3,
    unit: 'CloudWatch dashboard-month',
    source: 'https://aws.amazon.com/cloudwatch/pricing/',
  },
  natGatewayHour: {
    usd: 0.045,
    unit: 'NAT gateway-hour (per AZ)',
    source: 'https://aws.amazon.com/vpc/pricing/',
  },
  natGatewayGb: {
    usd: 0.045,
    unit: 'GB processed by a NAT gateway',
    source: 'https://aws.amazon.com/vpc/pricing/',
  },
  publicIpv4Hour: {
    usd: 0.005,
    unit: 'public IPv4 address-hour (a NAT gateway needs one)',
    source: 'https://aws.amazon.com/vpc/pricing/',
  },
  crossAzGb: {
    usd: 0.02,
    unit: 'GB between AZs in a Region ($0.01 out + $0.01 in): Lambda in one AZ, the Redis primary in another',
    source: 'https://aws.amazon.com/ec2/pricing/on-demand/',
    unverified: true,
  },
  googleCloudTasksOperation: {
    usd: 0.4 / 1e6,
    unit: 'Google Cloud Tasks billable operation, after 1M free a month (create and dispatch: 2 a job)',
    source: 'https://cloud.google.com/tasks/pricing',
    unverified: true,
  },
  qstashFixed10MPerDay: {
    usd: 420,
    unit: 'QStash fixed plan-month, up to 10M messages a day',
    source: 'https://upstash.com/pricing/qstash',
    unverified: true,
  },
  qstashFixed1MPerDay: {
    usd: 180,
    unit: 'QStash fixed plan-month, up to 1M messages a day',
    source: 'https://upstash.com/pricing/qstash',
    unverified: true,
  },
  fargateArmVcpuHour: {
    usd: 0.03238,
    unit: 'Fargate vCPU-hour (Linux/ARM)',
    source: 'https://aws.amazon.com/fargate/pricing/',
    unverified: true,
  },
  fargateArmGbHour: {
    usd: 0.00356,
    unit: 'Fargate GB-hour (Linux/ARM)',
    source: 'https://aws.amazon.com/fargate/pricing/',
    unverified: true,
  },
  qstashMessage: {
    usd: 1 / 100_000,
    unit: 'QStash message (pay as you go: $1 per 100K)',
    source: 'https://upstash.com/pricing/qstash',
  },
} satisfies Record<string, Price>

export const EVENTBRIDGE_SCHEDULER_FREE_INVOCATIONS = 14_000_000
export const GOOGLE_CLOUD_TASKS_FREE_OPERATIONS = 1_000_000

/** The account's AWS free tier per month (always-free parts), applied only with `--free-tier`. */
export const FREE_TIER = {
  lambdaRequests: 1_000_000,
  lambdaGbSeconds: 400_000,
  sqsRequests: 1_000_000,
  cloudWatchMetrics: 10,
  cloudWatchAlarms: 10,
  cloudWatchDashboards: 3,
  logsIngestGb: 5,
}
/** Standard workflow of a Wait state then an SQS SendMessage task: start, Wait, Task, end (DESIGN's ~3 transitions). */
export const STEP_FUNCTIONS_TRANSITIONS_PER_JOB = 3

export interface ValkeyNode {
  type: string
  memoryGiB: number
  hour: Price
}

/** An ElastiCache node type and its on-demand hourly list price (not checked against the source for this table). */
function valkeyNode(type: string, memoryGiB: number, usdPerHour: number): ValkeyNode {
  const source = 'https://aws.amazon.com/elasticache/pricing/'
  return { type, memoryGiB, hour: { usd: usdPerHour, unit: 'node-hour', source, unverified: true } }
}

/**
 * ElastiCache node-based Valkey, on-demand, one node (no replica). Usable memory is the node's memory less the 25%
 * ElastiCache reserves by default. Hourly prices: 20% below Redis OSS node prices; not re-checked for this table.
 */
export const VALKEY_NODES: ValkeyNode[] = [
  valkeyNode('cache.t4g.micro', 0.5, 0.0128),
  valkeyNode('cache.t4g.small', 1.37, 0.0256),
  valkeyNode('cache.t4g.medium', 3.09, 0.052),
  valkeyNode('cache.r7g.large', 13.07, 0.1752),
]
export const NODE_RESERVED_MEMORY = 0.25

export const HOURS_PER_MONTH = 730
