// osls plugin: the target queues are declared once, as a list in serverless.yml (custom.delayQueue.targetQueues),
// and this turns the list into everything that depends on it. YAML has no loops, hence a plugin; it only adds a
// variable source, so serverless.yml shows where each generated value goes:
//   ${targetQueues:resources}        SQS queue + DLQ per name (redrive policy, 1 MiB messages), as a `resources` entry,
//                                    with their URLs and ARNs as exported Outputs; each with a queue policy that
//                                    refuses requests not made over TLS, and kept (Retain) when the stack deletes or
//                                    replaces it: they hold accepted jobs and the jobs consumers gave up on
//   ${targetQueues:queuesEnv}        the QUEUES variable: "name=<queue url>,..." (CloudFormation Fn::Join)
//   ${targetQueues:sendArns}         the target queues' ARNs (not the DLQs): the scan function's SendMessage grant
//   ${targetQueues:defaultQueueArn}  the first queue's ARN: the example consumer's event source
// Every queue carries the tags sdq:target (its name in QUEUES) and sdq:role (target | dlq); local/dev.ts reads the
// printed resources to create the same queues in the local SQS endpoint.
//
// Written in CommonJS with erasable types only: osls loads plugins with require(), and Node 24 strips the types.
// (Run osls on Node 24, e.g. through npx / npm scripts: the `node` devDependency puts it first on PATH.)

interface DelayQueueSettings {
  targetQueues?: unknown
  maxReceiveCount?: unknown
  visibilityTimeout?: unknown
  consumerTimeout?: unknown
  messageRetentionSeconds?: unknown
}

interface ResolverArgs {
  address?: string
  resolveConfigurationProperty: (path: string[]) => Promise<unknown>
  resolveVariable: (variable: string) => Promise<unknown>
}

type Cfn = Record<string, unknown>

/** SQS's limit since 2025 (and the queue's default maximum message size here). */
const MAX_MESSAGE_SIZE = 1_048_576
/** Lambda's guidance for queues that drive a function: visibility timeout >= 6 x the function's timeout. */
const VISIBILITY_FACTOR = 6
/**
 * Lambda allows 4 KB for all of a function's environment variables, and QUEUES holds every target queue's URL (filled
 * in by CloudFormation at deploy time, so packaging cannot see its size). At its longest (the longest Region name, a
 * 12-digit account) QUEUES may take this much; the other settings, a long Redis URL included, fit in the rest.
 */
const QUEUES_BUDGET_BYTES = 2560
const LONGEST_QUEUE_URL_PREFIX = 'https://sqs.ap-southeast-5.amazonaws.com/123456789012/'
/** Same rule as src/queues.ts QUEUE_NAME. */
const QUEUE_NAME = /^[A-Za-z0-9_-]{1,75}(\.fifo)?$/

function fail(message: string): never {
  throw new Error(`custom.delayQueue: ${message}`)
}

function wholeNumber(value: unknown, name: string, min: number, max: number): number {
  const n = typeof value === 'string' && /^\d+$/.test(value.trim()) ? Number(value) : value
  if (typeof n !== 'number' || !Number.isInteger(n) || n < min || n > max) {
    fail(`${name} must be a whole number between ${min} and ${max}, got ${JSON.stringify(value)}`)
  }
  return n
}

/** "orders" -> "Orders", "email-digest.fifo" -> "EmailDigestFifo": the part of a CloudFormation logical id. */
function pascal(name: string): string {
  const fifo = name.endsWith('.fifo')
  const base = fifo ? name.slice(0, -5) : name
  const words = base.split(/[^A-Za-z0-9]+/).filter(Boolean)
  return words.map((w) => w[0]!.toUpperCase() + w.slice(1)).join('') + (fifo ? 'Fifo' : '')
}

interface TargetQueue {
  name: string
  fifo: boolean
  logicalId: string
  dlqLogicalId: string
  queueName: string
  dlqName: string
}

function targetQueues(settings: DelayQueueSettings, service: string, stage: string): TargetQueue[] {
  const list = settings.targetQueues
  if (!Array.isArray(list) || list.length === 0) fail('targetQueues must be a non-empty list of queue names')
  const seen = new Map<string, string>()
  const queues = list.map((raw): TargetQueue => {
    const name = String(raw)
    if (!QUEUE_NAME.test(name)) fail(`"${name}" is not a valid target queue name`)
    const fifo = name.endsWith('.fifo')
    const logicalId = `TargetQueue${pascal(name)}`
    const clash = seen.get(logicalId)
    if (clash) fail(`"${name}" and "${clash}" map to the same CloudFormation id ${logicalId}: rename one`)
    seen.set(logicalId, name)
    const base = `${service}-${stage}-${fifo ? name.slice(0, -5) : name}`
    const suffix = fifo ? '.fifo' : ''
    const queueName = `${base}${suffix}`
    const dlqName = `${base}-dlq${suffix}`
    if (dlqName.length > 80) fail(`the SQS name ${dlqName} is longer than 80 characters: shorten "${name}"`)
    return { name, fifo, logicalId, dlqLogicalId: `${logicalId}Dlq`, queueName, dlqName }
  })
  const queuesBytes = queues.reduce(
    (n, q, i) => n + (i ? 1 : 0) + `${q.name}=${LONGEST_QUEUE_URL_PREFIX}${q.queueName}`.length,
    0,
  )
  if (queuesBytes > QUEUES_BUDGET_BYTES) {
    fail(
      `the ${queues.length} target queues make QUEUES up to ${queuesBytes} bytes once their URLs are filled in, over ` +
        `${QUEUES_BUDGET_BYTES}: Lambda allows 4 KB for all of a function's environment. Use fewer or shorter names.`,
    )
  }
  return queues
}

const arnOf = (logicalId: string): Cfn => ({ 'Fn::GetAtt': [logicalId, 'Arn'] })

/**
 * A queue's policy: every request not made over TLS is denied, whoever makes it (AwsSolutions-SQS4). It is the
 * queue's whole policy (SQS keeps one per queue): a statement another stack needs belongs here, not in a second
 * AWS::SQS::QueuePolicy, which would replace this one.
 */
function tlsOnlyPolicy(logicalId: string): Cfn {
  return {
    Type: 'AWS::SQS::QueuePolicy',
    Properties: {
      Queues: [{ Ref: logicalId }],
      PolicyDocument: {
        Version: '2012-10-17',
        Statement: [
          {
            Sid: 'DenyWithoutTls',
            Effect: 'Deny',
            Principal: '*',
            Action: 'sqs:*',
            Resource: arnOf(logicalId),
            Condition: { Bool: { 'aws:SecureTransport': 'false' } },
          },
        ],
      },
    },
  }
}

/**
 * Queues outlive the stack's changes: a renamed target (a new logical id), a replacement (FifoQueue changed) or
 * `serverless remove` leaves the old queue and DLQ with their messages, for a consumer or `sdq redrive` to drain and
 * an operator to delete (docs/deploy.md).
 */
const KEEP = { DeletionPolicy: 'Retain', UpdateReplacePolicy: 'Retain' }

// Every output is exported as `<service>-<stage>-<output>` (e.g. my-queue-prod-TargetQueueOrdersArn), so another
// stack attaches a consumer with Fn::ImportValue. Logical ids only hold [A-Za-z0-9], which export names allow.
function resources(queues: TargetQueue[], settings: DelayQueueSettings, exportPrefix: string): Cfn {
  const maxReceiveCount = wholeNumber(settings.maxReceiveCount ?? 5, 'maxReceiveCount', 1, 1000)
  const consumerTimeout = wholeNumber(settings.consumerTimeout ?? 30, 'consumerTimeout', 1, 900)
  const minVisibility = VISIBILITY_FACTOR * consumerTimeout
  const visibilityTimeout = wholeNumber(settings.visibilityTimeout ?? minVisibility, 'visibilityTimeout', 0, 43_200)
  if (visibilityTimeout < minVisibility) {
    fail(
      `visibilityTimeout (${visibilityTimeout} s) must be at least ${VISIBILITY_FACTOR} x consumerTimeout (${minVisibility} s)`,
    )
  }
  const retention = wholeNumber(settings.messageRetentionSeconds ?? 1_209_600, 'messageRetentionSeconds', 60, 1_209_600)

  const Resources: Cfn = {}
  const Outputs: Cfn = {}
  for (const q of queues) {
    const common = (role: 'target' | 'dlq') => ({
      MaximumMessageSize: MAX_MESSAGE_SIZE,
      SqsManagedSseEnabled: true,
      ...(q.fifo ? { FifoQueue: true } : {}),
      Tags: [
        { Key: 'sdq:target', Value: q.name },
        { Key: 'sdq:role', Value: role },
      ],
    })
    // The DLQ keeps messages as long as SQS allows: they are the jobs a consumer gave up on.
    Resources[q.dlqLogicalId] = {
      Type: 'AWS::SQS::Queue',
      ...KEEP,
      Properties: { QueueName: q.dlqName, MessageRetentionPeriod: 1_209_600, ...common('dlq') },
    }
    Resources[q.logicalId] = {
      Type: 'AWS::SQS::Queue',
      ...KEEP,
      Properties: {
        QueueName: q.queueName,
        VisibilityTimeout: visibilityTimeout,
        MessageRetentionPeriod: retention,
        RedrivePolicy: { deadLetterTargetArn: arnOf(q.dlqLogicalId), maxReceiveCount },
        ...common('target'),
      },
    }
    Resources[`${q.logicalId}Policy`] = tlsOnlyPolicy(q.logicalId)
    Resources[`${q.dlqLogicalId}Policy`] = tlsOnlyPolicy(q.dlqLogicalId)
    const output = (key: string, Description: string, Value: unknown) =>
      (Outputs[key] = { Description, Value, Export: { Name: `${exportPrefix}-${key}` } })
    output(`${q.logicalId}Url`, `SQS URL of target queue "${q.name}"`, { Ref: q.logicalId })
    output(`${q.logicalId}Arn`, `ARN of target queue "${q.name}"`, arnOf(q.logicalId))
    output(`${q.dlqLogicalId}Url`, `SQS URL of the DLQ of "${q.name}"`, { Ref: q.dlqLogicalId })
    output(`${q.dlqLogicalId}Arn`, `ARN of the DLQ of "${q.name}"`, arnOf(q.dlqLogicalId))
  }
  return { Resources, Outputs }
}

/** QUEUES for the functions: "orders=https://sqs...,emails=https://sqs..." (src/queues.ts parseQueues). */
function queuesEnv(queues: TargetQueue[]): Cfn {
  const parts: unknown[] = []
  queues.forEach((q, i) => parts.push(`${i ? ',' : ''}${q.name}=`, { Ref: q.logicalId }))
  return { 'Fn::Join': ['', parts] }
}

class ServerlessTargetQueues {
  configurationVariablesSources: Record<string, { resolve: (args: ResolverArgs) => Promise<{ value: unknown }> }>

  constructor() {
    this.configurationVariablesSources = {
      targetQueues: {
        resolve: async ({ address, resolveConfigurationProperty, resolveVariable }) => {
          const settings = ((await resolveConfigurationProperty(['custom', 'delayQueue'])) ?? {}) as DelayQueueSettings
          const service = String(await resolveConfigurationProperty(['service']))
          const stage = String(await resolveVariable('sls:stage'))
          const queues = targetQueues(settings, service, stage)
          switch (address) {
            case 'resources':
              return { value: resources(queues, settings, `${service}-${stage}`) }
            case 'queuesEnv':
              return { value: queuesEnv(queues) }
            case 'sendArns':
              return { value: queues.map((q) => arnOf(q.logicalId)) }
            case 'defaultQueueArn':
              return { value: arnOf(queues[0]!.logicalId) }
            default:
              throw new Error(
                `\${targetQueues:${address ?? ''}}: unknown address (resources, queuesEnv, sendArns, defaultQueueArn)`,
              )
          }
        },
      },
    }
  }
}

module.exports = ServerlessTargetQueues
