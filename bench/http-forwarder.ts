// The HTTP forwarder's added latency: from the moment the event source mapping hands it a batch it received from SQS
// to the moment the job's request starts (payload checks, queue defaults, signing, the pinned lookup's first step),
// per job, over a steady stream. SQS is fauxqs and the receiver answers 200 at once on loopback (the one setting that
// allows loopback, local stage only), so what is measured is the forwarder's own work, not a network. As deployed,
// the forwarder has its Redis engine: before each call it reads the job's delivery record (a copy of a message
// answered already is not called again), and after it writes the outcome; a private redis-server holds them.
// Usage: npm run bench:http-forwarder [-- <jobs, default 5000>]
import { sleep } from '../devkit/sleep'
import { randomBytes } from 'node:crypto'
import { createServer } from 'node:http'
import { Logger } from '@aws-lambda-powertools/logger'
import { SendMessageBatchCommand, SQSClient } from '@aws-sdk/client-sqs'
import { createForwarder } from '../src/http-target/create-forwarder'
import { readForwarderSettings } from '../src/http-target/forwarder-settings'
import { JOB_ID_ATTRIBUTE, messageBody } from '../src/sqs/envelope'
import { localCredentials, startSqsProcess } from '../local/sqs-endpoint'
import { startSqsPoller } from '../tools/sdq-poll/sqs-poller'
import { loadConfig } from '../src/config'
import { DelayQueue } from '../src/direct/delay-queue'
import { createEngine } from '../src/store/engine'
import { startRedis } from '../local/redis-server'
import { localContext } from '../tools/sdq-poll/handler-loader'
import { percentiles } from '../devkit/stats'

const JOBS = Number(process.argv[2] ?? 5_000)

async function main() {
  const sqsProcess = await startSqsProcess()
  const redis = await startRedis().catch(async (error) => {
    await sqsProcess.stop()
    throw error
  })
  try {
    await measure(sqsProcess, redis.url)
  } finally {
    await redis.stop()
    await sqsProcess.stop()
  }
}

async function measure(sqsProcess: Awaited<ReturnType<typeof startSqsProcess>>, redisUrl: string) {
  const sqs = new SQSClient({ endpoint: sqsProcess.endpoint, region: 'us-east-1', credentials: localCredentials })
  const receiver = createServer((req, res) => {
    req.resume()
    req.on('end', () => res.writeHead(200).end('ok'))
  })
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r))
  const port = (receiver.address() as { port: number }).port
  const { queueUrl, queueArn } = await sqsProcess.createQueue('bench-http', { VisibilityTimeout: '60' })
  const receivedAt = new Map<string, number>()
  const samples: number[] = []
  const settingsEnv = {
    DEPLOY_STAGE: 'local',
    HTTP_ALLOW_LOOPBACK: 'true',
    HTTP_TARGETS: 'hooks',
    WEBHOOK_SECRETS: `whsec_${randomBytes(32).toString('base64')}`,
  }
  const engine = createEngine(
    loadConfig({
      REDIS_URL: redisUrl,
      QUEUES: JSON.stringify({ hooks: queueUrl }),
      REDIS_WAIT_REPLICAS: '0',
      ...settingsEnv,
    }),
  )
  const forwarder = createForwarder({
    settings: readForwarderSettings(settingsEnv),
    engine,
    queue: new DelayQueue(engine),
    sqs,
    logger: new Logger({ logLevel: 'SILENT' }),
    maxReceiveCount: 5,
    onRequestStart: (job) => samples.push(performance.now() - receivedAt.get(job.messageId)!),
  })
  const pollers = Array.from({ length: 2 }, () =>
    startSqsPoller({
      sqs,
      queueUrl,
      queueArn,
      waitTimeSeconds: 1,
      invoke: (event) => {
        const now = performance.now()
        for (const r of event.Records) receivedAt.set(r.messageId, now)
        return forwarder.handler(event, localContext('forwarder', 30_000))
      },
    }),
  )
  const started = performance.now()
  // A steady stream: 10 jobs every 5 ms (~2,000/s offered), so batches arrive as they would from a busy queue.
  for (let i = 0; i < JOBS; i += 10) {
    const now = Date.now()
    await sqs.send(
      new SendMessageBatchCommand({
        QueueUrl: queueUrl,
        Entries: Array.from({ length: Math.min(10, JOBS - i) }, (_, n) => {
          const id = `bench-${i + n}`
          const payload = JSON.stringify({ url: `http://127.0.0.1:${port}/hook`, body: { n: i + n } })
          return {
            Id: String(n),
            MessageBody: messageBody({ id, queue: 'hooks', payloadJson: payload, dueMs: now, createdAtMs: now }, now),
            MessageAttributes: { [JOB_ID_ATTRIBUTE]: { DataType: 'String', StringValue: id } },
          }
        }),
      }),
    )
    await sleep(5)
  }
  while (samples.length < JOBS && performance.now() - started < 120_000) await sleep(50)
  await Promise.all(pollers.map((p) => p.stop()))
  forwarder.sender.close()
  receiver.close()
  sqs.destroy()
  await engine.close()
  const p = percentiles(samples)
  const round = (n: number) => Math.round(n * 100) / 100
  console.log(
    `forwarder added latency (batch received -> request start) over ${p.count} jobs: ` +
      `p50 ${round(p.p50)} ms, p90 ${round(p.p90)} ms, p99 ${round(p.p99)} ms, max ${round(p.max)} ms`,
  )
}

main().catch((error) => {
  console.error(error)
  process.exitCode = 1
})
