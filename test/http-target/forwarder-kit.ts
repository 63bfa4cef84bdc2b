// The forwarder under test: a Standard Webhooks secret, the receiver on loopback, an HTTP target queue with a DLQ on
// fauxqs, the forwarder behind the local event source mapping (the pollers), a Redis engine for its records, and
// (scan()) a scanner sending the target's due jobs.
import { randomBytes, randomUUID } from 'node:crypto'
import { SendMessageBatchCommand } from '@aws-sdk/client-sqs'
import { Logger } from '@aws-lambda-powertools/logger'
import { inject } from 'vitest'
import { loadConfig } from '../../src/config'
import { DelayQueue } from '../../src/direct/delay-queue'
import { createForwarder, type ForwarderOptions } from '../../src/http-target/create-forwarder'
import { readForwarderSettings } from '../../src/http-target/forwarder-settings'
import { JOB_ID_ATTRIBUTE, messageBody } from '../../src/sqs/envelope'
import { createEngine, type Engine } from '../../src/store/engine'
import { startSqsPoller, type SqsPoller } from '../../tools/sdq-poll/sqs-poller'
import { uniquePrefix } from '../support/engine'
import { testScanner } from '../support/scanner'
import { lambdaContext } from '../support/lambda'
import { queueWithDlq, sqs } from '../consumer/queues'
import { startReceiver, type Receiver } from './receiver'

export const TARGET = 'hooks'

export interface Kit {
  /** The HTTP target queue's name (TARGET unless asked otherwise). */
  target: string
  secret: string
  receiver: Receiver
  queue: Awaited<ReturnType<typeof queueWithDlq>>
  engine: Engine
  forwarder: ReturnType<typeof createForwarder>
  /** Starts `n` pollers feeding the forwarder; stopped by close(). */
  poll(n?: number): void
  /** Starts a scanner sending the target's due jobs to its queue, as the scan function does; stopped by close(). */
  scan(): void
  close(): Promise<void>
}

/** `target`: the HTTP target queue's name; one ending in .fifo makes its SQS queue (and DLQ) FIFO. */
export async function startKit(
  env: Record<string, string> = {},
  options: ForwarderOptions = {},
  target = TARGET,
): Promise<Kit> {
  const secret = `whsec_${randomBytes(32).toString('base64')}`
  const receiver = await startReceiver(secret)
  // Visibility beyond the handler's time, as the template sets it (6 x the function timeout): only the toolkit's
  // retry delays bring a message back early.
  const fifo = target.endsWith('.fifo') ? '.fifo' : ''
  const queue = await queueWithDlq(`hooks-${randomUUID().slice(0, 8)}${fifo}`, 3, { VisibilityTimeout: '60' })
  const settingsEnv = {
    DEPLOY_STAGE: 'local',
    HTTP_ALLOW_LOOPBACK: 'true',
    HTTP_TARGETS: target,
    WEBHOOK_SECRETS: secret,
    HTTP_TIMEOUT_MS: '1000',
    ...env,
  }
  const engine = createEngine(
    loadConfig({
      REDIS_URL: inject('redisUrl'),
      QUEUES: JSON.stringify({ [target]: queue.url }),
      KEY_PREFIX: uniquePrefix('http'),
      ...settingsEnv,
    }),
  )
  const forwarder = createForwarder({
    settings: readForwarderSettings(settingsEnv),
    engine,
    queue: new DelayQueue(engine),
    sqs,
    logger: new Logger({ logLevel: 'SILENT' }),
    backoff: { baseSeconds: 1, jitter: false },
    concurrency: 10,
    ...options,
  })
  const pollers: SqsPoller[] = []
  let scanner: ReturnType<typeof testScanner> | undefined
  let scanning: Promise<unknown> | undefined
  let stopScanning = false
  return {
    target,
    secret,
    receiver,
    queue,
    engine,
    forwarder,
    poll: (n = 1) => {
      for (let i = 0; i < n; i++) {
        pollers.push(
          startSqsPoller({
            sqs,
            queueUrl: queue.url,
            queueArn: queue.arn,
            waitTimeSeconds: 1,
            onError: () => undefined,
            invoke: (event) => forwarder.handler(event, lambdaContext({ budgetMs: 30_000 })),
          }),
        )
      }
    },
    scan: () => {
      scanner = testScanner(engine.store, {
        queues: { [target]: queue.url },
        receiptTtlMs: engine.config.dispatchReceiptTtlMs,
      })
      scanning = scanner.runUntil(() => stopScanning, 120_000)
    },
    close: async () => {
      stopScanning = true
      await scanning
      await scanner?.close()
      await Promise.all(pollers.map((p) => p.stop()))
      forwarder.sender.close()
      await receiver.close()
      await engine.close()
    },
  }
}

/** Messages as the scanner sends them for jobs of the HTTP target queue, ten per SendMessageBatch. */
export async function sendHttpJobs(queueUrl: string, jobs: { id: string; payload: unknown }[]): Promise<void> {
  const now = Date.now()
  const batches: (typeof jobs)[] = []
  for (let i = 0; i < jobs.length; i += 10) batches.push(jobs.slice(i, i + 10))
  for (let i = 0; i < batches.length; i += 20) {
    await Promise.all(
      batches.slice(i, i + 20).map((batch) =>
        sqs.send(
          new SendMessageBatchCommand({
            QueueUrl: queueUrl,
            Entries: batch.map((j, n) => ({
              Id: String(n),
              MessageBody: messageBody(
                { id: j.id, queue: TARGET, payloadJson: JSON.stringify(j.payload), dueMs: now, createdAtMs: now },
                now,
              ),
              MessageAttributes: { [JOB_ID_ATTRIBUTE]: { DataType: 'String', StringValue: j.id } },
            })),
          }),
        ),
      ),
    )
  }
}
