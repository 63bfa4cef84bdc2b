// The whole chain at compressed time, for the examples: DelayQueue -> Redis -> scanner -> SQS (fauxqs) -> a
// stand-in for Lambda's event source mapping -> the business handler.
import { Logger } from '@aws-lambda-powertools/logger'
import type { Context, SQSBatchResponse, SQSEvent } from 'aws-lambda'
import { inject } from 'vitest'
import { DelayQueue } from '../../src/direct/delay-queue'
import { loadConfig } from '../../src/config'
import { startSqsPoller } from '../../tools/sdq-poll/sqs-poller'
import { testStore } from './engine'
import { lambdaContext } from './lambda'
import { testScanner } from './scanner'
import { createQueue, sqsClient } from './sqs'

type Handler = (event: SQSEvent, context: Context) => Promise<SQSBatchResponse | void>

export const silentLogger = () => new Logger({ logLevel: 'SILENT' })

/** Starts the chain for one target queue; `handler` is built once the queue URL is known. */
export async function startPipeline(
  queueName: string,
  makeHandler: (sqs: ReturnType<typeof sqsClient>, queue: DelayQueue) => Handler,
) {
  const sqs = sqsClient()
  const t = testStore()
  const q = await createQueue(sqs, queueName, { VisibilityTimeout: '2' })
  const config = loadConfig({ REDIS_URL: inject('redisUrl'), QUEUES: `${queueName}=${q.url}` })
  const queue = new DelayQueue({ config, store: t.store })
  const scan = testScanner(t, { queues: { [queueName]: q.url }, pollIntervalMs: 50 })
  const scanning = scan.scanner.run(Date.now() + 120_000)
  const handler = makeHandler(sqs, queue)
  const poller = startSqsPoller({
    sqs,
    queueUrl: q.url,
    queueArn: `arn:aws:sqs:us-east-1:000000000000:${q.name}`,
    invoke: (event) => handler(event, lambdaContext({ name: 'example' })).then((r) => r ?? undefined),
    waitTimeSeconds: 0,
  })
  return {
    queue,
    store: t.store,
    async stop() {
      await poller.stop()
      scan.scanner.stop()
      await scanning
      await scan.close()
      await t.close()
      sqs.destroy()
    },
  }
}

export { eventually } from './eventually'
