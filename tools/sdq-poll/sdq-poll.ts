// sdq-poll: Lambda's SQS event source mapping for another service's consumer, against the delay queue's dev stack.
// Long-polls one target queue of the local SQS endpoint and hands each batch to the user's handler (loaded in this
// process, or invoked through serverless-offline's Lambda endpoint), settling it as AWS does with
// ReportBatchItemFailures (tools/sdq-poll/sqs-poller.ts). The handler's own backoff (ChangeMessageVisibility) reaches the same
// endpoint: SQS_ENDPOINT is set for it from the env file.
//   sdq-poll --env ../delay-queue/.dev/env --queue orders --handler src/close-order.ts
//   sdq-poll --env ../delay-queue/.dev/env --queue orders --lambda-endpoint http://127.0.0.1:3102 --function svc-dev-closeOrder
import { GetQueueAttributesCommand, SQSClient } from '@aws-sdk/client-sqs'
import { parseArgs } from 'node:util'
import { parseNamedUrls, readDevEnv } from './dev-env'
import { loadHandler, localContext } from './handler-loader'
import { invokeFunction } from './invoke-function'
import { startSqsPoller } from './sqs-poller'

const USAGE = `usage: sdq-poll --queue <target> (--handler <file>[#export] | --lambda-endpoint <url> --function <name>)
               [--env <dev stack env file>] [--batch-size 1-10] [--timeout <seconds>]
--env defaults to SDQ_DEV_ENV, else .dev/env of ../serverless-delay-queue.`

const LOCAL_CREDENTIALS = { accessKeyId: 'local', secretAccessKey: 'local' }

async function main() {
  const { values } = parseArgs({
    options: {
      env: { type: 'string' },
      queue: { type: 'string' },
      handler: { type: 'string' },
      'lambda-endpoint': { type: 'string' },
      function: { type: 'string' },
      'batch-size': { type: 'string', default: '10' },
      timeout: { type: 'string', default: '30' },
      help: { type: 'boolean' },
    },
  })
  if (values.help || !values.queue || !(values.handler || (values['lambda-endpoint'] && values.function))) {
    console.error(USAGE)
    process.exit(values.help ? 0 : 2)
  }
  const dev = readDevEnv(values.env ?? process.env.SDQ_DEV_ENV ?? '../serverless-delay-queue/.dev/env')
  const queueUrl = parseNamedUrls(dev.QUEUES)[values.queue]
  if (!queueUrl) throw new Error(`no target queue "${values.queue}" in the dev stack (it has: ${dev.QUEUES})`)
  // The handler runs here: it sees the stack's addresses, unless the shell sets its own.
  for (const [k, v] of Object.entries(dev)) process.env[k] ??= v
  process.env.AWS_ACCESS_KEY_ID ??= LOCAL_CREDENTIALS.accessKeyId
  process.env.AWS_SECRET_ACCESS_KEY ??= LOCAL_CREDENTIALS.secretAccessKey

  const sqs = new SQSClient({
    endpoint: dev.SQS_ENDPOINT,
    region: dev.AWS_REGION ?? 'us-east-1',
    credentials: LOCAL_CREDENTIALS,
  })
  const { Attributes } = await sqs.send(
    new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: ['QueueArn'] }),
  )
  const invoke = await invoker(values)
  const poller = startSqsPoller({
    sqs,
    queueUrl,
    queueArn: Attributes!.QueueArn!,
    batchSize: Number(values['batch-size']),
    invoke,
    onError: (e) => console.error(`[sdq-poll] ${e instanceof Error ? e.message : e}`),
  })
  console.error(`[sdq-poll] polling "${values.queue}" (${queueUrl})`)
  const stop = async () => {
    await poller.stop()
    sqs.destroy()
    process.exit(0)
  }
  process.once('SIGINT', stop)
  process.once('SIGTERM', stop)
}

async function invoker(values: { handler?: string; function?: string; 'lambda-endpoint'?: string; timeout: string }) {
  const timeoutMs = Number(values.timeout) * 1000
  if (values.handler) {
    const handler = await loadHandler(values.handler)
    const name = values.function ?? values.handler.replace(/[^A-Za-z0-9-_]/g, '-')
    return (event: Parameters<typeof handler>[0]) => handler(event, localContext(name, timeoutMs))
  }
  // biome-ignore lint/suspicious/noExplicitAny: the handler's answer is passed through to the poller untouched
  return (event: unknown) => invokeFunction(values['lambda-endpoint']!, values.function!, event) as Promise<any>
}

main().catch((error) => {
  console.error(`[sdq-poll] ${error instanceof Error ? error.message : error}`)
  process.exit(1)
})
