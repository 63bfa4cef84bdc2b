// What the local stack needs from serverless.yml, read from osls itself (`serverless print`, variables resolved), so
// local queues and consumers are the ones declared there, never a second list kept by hand.
import { spawn } from 'node:child_process'
import { resolve } from 'node:path'

/** One SQS queue of the stack, as the target-queues plugin declared it (tags sdq:target / sdq:role). */
export interface QueueSpec {
  logicalId: string
  queueName: string
  /** The target name (the key in QUEUES). */
  target: string
  role: 'target' | 'dlq'
  /** CreateQueue attributes, except RedrivePolicy (it names the DLQ by ARN, known only once the DLQ exists). */
  attributes: Record<string, string>
  redrive?: { dlqLogicalId: string; maxReceiveCount: number }
}

/** A function fed by an SQS event source mapping. */
export interface ConsumerSpec {
  function: string
  queueLogicalId: string
  batchSize: number
}

export interface ServiceSpec {
  service: string
  stage: string
  /** Function key -> deployed name (`<service>-<stage>-<key>`), the name the Lambda endpoint knows. */
  functionNames: Record<string, string>
  queues: QueueSpec[]
  consumers: ConsumerSpec[]
}

// biome-ignore lint/suspicious/noExplicitAny: serverless.yml as parsed YAML, read field by field
type Json = Record<string, any>

export const slsBin = (root: string) => resolve(root, 'node_modules/serverless/bin/serverless.js')

/** Runs `serverless print` for the stage (no AWS access: nothing in the local stage reads from AWS). */
export async function readServiceSpec(
  root: string,
  stage: string,
  env: NodeJS.ProcessEnv = process.env,
): Promise<ServiceSpec> {
  const printed = await new Promise<string>((ok, fail) => {
    const child = spawn(process.execPath, [slsBin(root), 'print', '--stage', stage, '--format', 'json'], {
      cwd: root,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let out = ''
    let err = ''
    child.stdout.on('data', (d) => (out += d))
    child.stderr.on('data', (d) => (err += d))
    child.once('error', fail)
    child.once('exit', (code) =>
      code === 0 ? ok(out) : fail(new Error(`serverless print --stage ${stage} failed (${code}):\n${err}${out}`)),
    )
  })
  return parseServiceSpec(JSON.parse(printed.slice(printed.indexOf('{'))))
}

export function parseServiceSpec(config: Json): ServiceSpec {
  const service = String(config.service)
  const stage = String(config.provider?.stage)
  const functionNames: Record<string, string> = {}
  const consumers: ConsumerSpec[] = []
  for (const [key, fn] of Object.entries<Json>(config.functions ?? {})) {
    functionNames[key] = fn.name ?? `${service}-${stage}-${key}`
    for (const event of fn.events ?? []) {
      if (!event.sqs) continue
      const arn = typeof event.sqs === 'string' ? event.sqs : event.sqs.arn
      const logicalId = arn?.['Fn::GetAtt']?.[0]
      if (!logicalId) throw new Error(`function ${key}: only sqs events on queues of this stack run locally`)
      consumers.push({ function: key, queueLogicalId: logicalId, batchSize: event.sqs.batchSize ?? 10 })
    }
  }

  const resources: Json =
    (Array.isArray(config.resources)
      ? Object.assign({}, ...config.resources.map((r: Json) => r.Resources))
      : config.resources?.Resources) ?? {}
  const queues: QueueSpec[] = []
  for (const [logicalId, res] of Object.entries<Json>(resources)) {
    if (res.Type !== 'AWS::SQS::Queue') continue
    const p: Json = res.Properties ?? {}
    const tag = (key: string) => (p.Tags ?? []).find((t: Json) => t.Key === key)?.Value
    const attributes: Record<string, string> = {}
    for (const name of [
      'VisibilityTimeout',
      'MaximumMessageSize',
      'MessageRetentionPeriod',
      'DelaySeconds',
      'FifoQueue',
      'ContentBasedDeduplication',
    ]) {
      if (p[name] !== undefined) attributes[name] = String(p[name])
    }
    const dlqLogicalId = p.RedrivePolicy?.deadLetterTargetArn?.['Fn::GetAtt']?.[0]
    queues.push({
      logicalId,
      queueName: String(p.QueueName),
      target: tag('sdq:target') ?? String(p.QueueName),
      role: tag('sdq:role') === 'dlq' ? 'dlq' : 'target',
      attributes,
      ...(dlqLogicalId ? { redrive: { dlqLogicalId, maxReceiveCount: Number(p.RedrivePolicy.maxReceiveCount) } } : {}),
    })
  }
  // DLQs first: a queue's redrive policy names its DLQ's ARN.
  queues.sort((a, b) => (a.role === b.role ? 0 : a.role === 'dlq' ? -1 : 1))
  return { service, stage, functionNames, queues, consumers }
}
