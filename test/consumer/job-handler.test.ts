// The consumer toolkit against real fauxqs queues (and real Redis for idempotency): what a business Lambda's
// author relies on — partial batch failures, backoff, DLQ, malformed messages, FIFO order, at-most-once runs.
import { randomUUID } from 'node:crypto'
import { setTimeout as sleep } from 'node:timers/promises'
import { Logger } from '@aws-lambda-powertools/logger'
import {
  CreateQueueCommand,
  GetQueueAttributesCommand,
  ReceiveMessageCommand,
  SendMessageCommand,
  SQSClient,
} from '@aws-sdk/client-sqs'
import type { Context, SQSBatchResponse, SQSEvent } from 'aws-lambda'
import { Redis } from 'ioredis'
import { afterAll, describe, expect, inject, it } from 'vitest'
import { localCredentials } from '../../local/sqs-endpoint'
import { startSqsPoller, toRecord, type SqsPoller } from '../../local/sqs-poller'
import { jobHandler, type Job, type JobHandlerOptions } from '../../src/consumer'
import { JOB_ID_ATTRIBUTE, messageBody } from '../../src/envelope'

const sqsEndpoint = inject('sqsEndpoint')
const sqs = new SQSClient({ endpoint: sqsEndpoint, region: 'us-east-1', credentials: localCredentials })
const silent = new Logger({ logLevel: 'SILENT' })
const pollers: SqsPoller[] = []
afterAll(async () => {
  await Promise.all(pollers.map((p) => p.stop()))
  sqs.destroy()
})

// ---- scenario helpers ------------------------------------------------------------------------------------------

const unique = (name: string) => `${name}-${randomUUID().slice(0, 8)}`

async function createQueue(name: string, attributes: Record<string, string> = {}) {
  const { QueueUrl } = await sqs.send(
    new CreateQueueCommand({ QueueName: name, Attributes: { VisibilityTimeout: '1', ...attributes } }),
  )
  const a = await sqs.send(new GetQueueAttributesCommand({ QueueUrl, AttributeNames: ['QueueArn'] }))
  return { queueUrl: QueueUrl!, queueArn: a.Attributes!.QueueArn! }
}

/** A target queue whose messages move to a DLQ after `maxReceiveCount` receives. */
async function queueWithDlq(name: string, maxReceiveCount: number, attributes: Record<string, string> = {}) {
  const fifo = name.endsWith('.fifo')
  const dlq = await createQueue(fifo ? name.replace(/\.fifo$/, '-dlq.fifo') : `${name}-dlq`, attributes)
  const queue = await createQueue(name, {
    ...attributes,
    RedrivePolicy: JSON.stringify({ deadLetterTargetArn: dlq.queueArn, maxReceiveCount }),
  })
  return { ...queue, dlq }
}

/** A message exactly as the scanner sends it (src/envelope.ts). */
async function sendJob(queueUrl: string, id: string, payload: unknown, groupId?: string): Promise<void> {
  await sendRaw(queueUrl, jobBody(id, payload), id, groupId)
}

function jobBody(id: string, payload: unknown, dueMs = Date.now() - 25): string {
  return messageBody({ id, queue: 'orders', payloadJson: JSON.stringify(payload), dueMs, createdAtMs: dueMs - 1000 }, dueMs)
}

async function sendRaw(queueUrl: string, body: string, jobId: string, groupId?: string): Promise<void> {
  await sqs.send(
    new SendMessageCommand({
      QueueUrl: queueUrl,
      MessageBody: body,
      MessageAttributes: { [JOB_ID_ATTRIBUTE]: { DataType: 'String', StringValue: jobId } },
      ...(groupId ? { MessageGroupId: groupId, MessageDeduplicationId: randomUUID() } : {}),
    }),
  )
}

/** Receives `count` messages and shapes them as Lambda would (for driving the handler directly). */
async function receiveEvent(queueUrl: string, queueArn: string, count: number): Promise<SQSEvent> {
  const records: SQSEvent['Records'] = []
  for (let tries = 0; records.length < count && tries < 10; tries++) {
    const out = await sqs.send(
      new ReceiveMessageCommand({
        QueueUrl: queueUrl,
        MaxNumberOfMessages: Math.min(10, count - records.length),
        WaitTimeSeconds: 1,
        MessageSystemAttributeNames: ['All'],
        MessageAttributeNames: ['All'],
      }),
    )
    for (const m of out.Messages ?? []) records.push(toRecord(m, queueArn))
  }
  expect(records).toHaveLength(count)
  return { Records: records }
}

async function receiveNow(queueUrl: string, waitTimeSeconds = 0) {
  const out = await sqs.send(
    new ReceiveMessageCommand({
      QueueUrl: queueUrl,
      MaxNumberOfMessages: 10,
      WaitTimeSeconds: waitTimeSeconds,
      MessageSystemAttributeNames: ['All'],
      VisibilityTimeout: 30,
    }),
  )
  return out.Messages ?? []
}

function lambdaContext(): Context {
  const deadline = Date.now() + 30_000
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName: 'consumer-test',
    functionVersion: '$LATEST',
    invokedFunctionArn: 'arn:aws:lambda:us-east-1:000000000000:function:consumer-test',
    memoryLimitInMB: '256',
    awsRequestId: randomUUID(),
    logGroupName: '/aws/lambda/consumer-test',
    logStreamName: 'local',
    getRemainingTimeInMillis: () => deadline - Date.now(),
    done: () => {},
    fail: () => {},
    succeed: () => {},
  }
}

/** Runs the handler behind the local event source mapping; keeps every answer it gave. */
function drive(handler: (e: SQSEvent, c: Context) => Promise<SQSBatchResponse>, queue: { queueUrl: string; queueArn: string }) {
  const answers: { event: SQSEvent; response: SQSBatchResponse }[] = []
  const poller = startSqsPoller({
    sqs,
    ...queue,
    waitTimeSeconds: 1,
    invoke: async (event) => {
      const response = await handler(event, lambdaContext())
      answers.push({ event, response })
      return response
    },
  })
  pollers.push(poller)
  return { answers, stop: () => poller.stop() }
}

async function eventually(check: () => boolean | Promise<boolean>, timeoutMs = 15_000): Promise<void> {
  const end = Date.now() + timeoutMs
  while (!(await check())) {
    if (Date.now() > end) throw new Error('condition not met in time')
    await sleep(50)
  }
}

const options = (extra: JobHandlerOptions<unknown> = {}): JobHandlerOptions<unknown> => ({
  sqsEndpoint,
  logger: silent,
  backoff: { baseSeconds: 1, jitter: false },
  ...extra,
})

// ---- scenarios -------------------------------------------------------------------------------------------------

describe('jobHandler on a standard queue', () => {
  it('retries only the records that failed in a partial batch', async () => {
    // prepare
    const queue = await createQueue(unique('partial'))
    const ids = ['a', 'b', 'c', 'd'].map((s) => unique(s))
    for (const id of ids) await sendJob(queue.queueUrl, id, { n: id })
    const runs: string[] = []
    const handler = jobHandler(async (job) => {
      runs.push(`${job.id}#${job.attempt}`)
      if (job.id === ids[1] && job.attempt === 1) throw new Error('transient')
    }, options())
    // act
    const run = drive(handler, queue)
    await eventually(() => runs.includes(`${ids[1]}#2`))
    await run.stop()
    // assess
    expect(runs.sort()).toEqual([`${ids[0]}#1`, `${ids[1]}#1`, `${ids[1]}#2`, `${ids[2]}#1`, `${ids[3]}#1`].sort())
    const failures = run.answers.flatMap((a) => a.response.batchItemFailures)
    expect(failures).toHaveLength(1)
    await sleep(1_200) // past the queue's visibility timeout: anything left undeleted would be receivable
    expect(await receiveNow(queue.queueUrl)).toEqual([])
  })

  it('hides a failed message for the backoff delay, longer than the queue visibility timeout', async () => {
    // prepare: queue visibility 2 s, backoff 4 s on the first failure (margins for a busy machine)
    const queue = await createQueue(unique('backoff'), { VisibilityTimeout: '2' })
    const id = unique('job')
    await sendJob(queue.queueUrl, id, {})
    const handler = jobHandler(async () => {
      throw new Error('down')
    }, options({ backoff: { baseSeconds: 4, jitter: false } }))
    const event = await receiveEvent(queue.queueUrl, queue.queueArn, 1)
    // act
    const response = await handler(event, lambdaContext())
    const failedAt = Date.now()
    // assess
    expect(response.batchItemFailures).toEqual([{ itemIdentifier: event.Records[0]!.messageId }])
    await sleep(2_700)
    expect(await receiveNow(queue.queueUrl)).toEqual([]) // the queue's 2 s alone would have shown it by now
    const again = await receiveNow(queue.queueUrl, 5)
    expect(again).toHaveLength(1)
    expect(Date.now() - failedAt).toBeGreaterThanOrEqual(3_900)
    expect(again[0]!.Attributes!.ApproximateReceiveCount).toBe('2')
  })

  it('moves a job that keeps failing to the DLQ after maxReceiveCount attempts', async () => {
    // prepare
    const queue = await queueWithDlq(unique('dlq'), 2)
    const id = unique('job')
    await sendJob(queue.queueUrl, id, { orderId: 42 })
    const attempts: number[] = []
    const handler = jobHandler(async (job) => {
      attempts.push(job.attempt)
      throw new Error('always')
    }, options())
    // act
    const run = drive(handler, queue)
    let dead: Awaited<ReturnType<typeof receiveNow>> = []
    await eventually(async () => (dead = await receiveNow(queue.dlq.queueUrl)).length > 0)
    await run.stop()
    // assess
    expect(attempts).toEqual([1, 2])
    expect(JSON.parse(dead[0]!.Body!)).toMatchObject({ id, payload: { orderId: 42 } })
  })

  it('fails only the malformed record of a batch and sends it to the DLQ without backoff', async () => {
    // prepare: backoff of 30 s would keep a failed *job* out of the DLQ for the whole test
    const queue = await queueWithDlq(unique('malformed'), 2)
    const good = unique('good')
    await sendRaw(queue.queueUrl, '{"id": "broken", "payload": ', 'broken')
    await sendJob(queue.queueUrl, good, { ok: true })
    const runs: string[] = []
    const handler = jobHandler(async (job) => void runs.push(job.id), options({ backoff: { baseSeconds: 30 } }))
    const event = await receiveEvent(queue.queueUrl, queue.queueArn, 2)
    const bad = event.Records.find((r) => r.body.startsWith('{"id": "broken"'))!
    // act
    const response = await handler(event, lambdaContext())
    // assess: the batch survived and only the malformed record is reported
    expect(response.batchItemFailures).toEqual([{ itemIdentifier: bad.messageId }])
    expect(runs).toEqual([good])
    // act: settle that batch as AWS would, then let the poller carry on
    const run = drive(handler, queue)
    await sqs.send(
      new (await import('@aws-sdk/client-sqs')).DeleteMessageCommand({
        QueueUrl: queue.queueUrl,
        ReceiptHandle: event.Records.find((r) => r !== bad)!.receiptHandle,
      }),
    )
    let dead: Awaited<ReturnType<typeof receiveNow>> = []
    await eventually(async () => (dead = await receiveNow(queue.dlq.queueUrl)).length > 0, 10_000)
    await run.stop()
    // assess
    expect(dead.map((m) => m.Body)).toEqual([bad.body])
    expect(runs).toEqual([good])
  })

  it('runs at most `concurrency` records of a batch at once', async () => {
    // prepare
    const queue = await createQueue(unique('bound'), { VisibilityTimeout: '30' })
    for (let i = 0; i < 6; i++) await sendJob(queue.queueUrl, unique(`j${i}`), { i })
    let active = 0
    let peak = 0
    const handler = jobHandler(async () => {
      peak = Math.max(peak, ++active)
      await sleep(50)
      active--
    }, options({ concurrency: 2 }))
    const event = await receiveEvent(queue.queueUrl, queue.queueArn, 6)
    // act
    const response = await handler(event, lambdaContext())
    // assess
    expect(response.batchItemFailures).toEqual([])
    expect(peak).toBe(2)
  })
})

describe('jobHandler on a FIFO queue', () => {
  it('stops a message group at its first failure within a batch and keeps other groups going', async () => {
    // prepare: fauxqs hands out one message per group per receive, so this batch (several messages of a group,
    // as AWS delivers them) is built here; backoff is off, so nothing talks to SQS.
    const arn = `arn:aws:sqs:us-east-1:000000000000:${unique('orders')}.fifo`
    const layout = [['a1', 'A'], ['a2', 'A'], ['b1', 'B'], ['a3', 'A'], ['b2', 'B']] as const
    const event: SQSEvent = {
      Records: layout.map(([id, group], n) =>
        toRecord(
          {
            MessageId: `m-${id}`,
            ReceiptHandle: `rh-${id}`,
            Body: jobBody(id, {}),
            Attributes: { ApproximateReceiveCount: '1', MessageGroupId: group, SequenceNumber: String(n) },
          },
          arn,
        ),
      ),
    }
    const runs: string[] = []
    const handler = jobHandler(async (job: Job) => {
      runs.push(job.id)
      if (job.id === 'a2') throw new Error('a2 fails')
    }, options({ backoff: false }))
    // act
    const response = await handler(event, lambdaContext())
    // assess: a3 must not overtake a2; group B is unaffected
    expect(runs).toEqual(['a1', 'a2', 'b1', 'b2'])
    expect(response.batchItemFailures).toEqual([{ itemIdentifier: 'm-a2' }, { itemIdentifier: 'm-a3' }])
  })

  it('retries a failed FIFO message before the rest of its group, after its backoff', async () => {
    // prepare
    const queue = await createQueue(`${unique('order')}.fifo`, { FifoQueue: 'true' })
    const [a1, a2, a3, b1, b2] = ['a1', 'a2', 'a3', 'b1', 'b2'].map((s) => unique(s)) as string[] as [
      string, string, string, string, string,
    ]
    for (const [id, group] of [[a1, 'A'], [a2, 'A'], [b1, 'B'], [a3, 'A'], [b2, 'B']] as const) {
      await sendJob(queue.queueUrl, id, {}, group)
    }
    const runs: { id: string; attempt: number; group?: string }[] = []
    const handler = jobHandler(async (job: Job) => {
      runs.push({ id: job.id, attempt: job.attempt, group: job.groupId })
      if (job.id === a2 && job.attempt === 1) throw new Error('a2 fails once')
    }, options())
    // act
    const run = drive(handler, queue)
    await eventually(() => runs.some((r) => r.id === a3))
    await run.stop()
    // assess
    const group = (g: string) => runs.filter((r) => r.group === g).map((r) => `${r.id}#${r.attempt}`)
    expect(group('A')).toEqual([`${a1}#1`, `${a2}#1`, `${a2}#2`, `${a3}#1`])
    expect(group('B')).toEqual([`${b1}#1`, `${b2}#1`])
  })
})

describe('jobHandler with idempotency (real Redis)', () => {
  const redis = new Redis(inject('redisUrl'))
  afterAll(() => redis.quit())

  it('runs the business code once when the same job is delivered twice', async () => {
    // prepare: two copies of one job (what a lost ack or an SQS duplicate produces), with different dispatch times
    const queue = await createQueue(unique('idem'))
    const id = unique('job')
    const due = Date.now() - 10
    await sendRaw(queue.queueUrl, jobBody(id, { x: 1 }, due), id)
    await sendRaw(queue.queueUrl, jobBody(id, { x: 1 }, due).replace(/"dispatchedAt":"[^"]+"/, `"dispatchedAt":"${new Date().toISOString()}"`), id)
    let runs = 0
    const handler = jobHandler(async () => {
      runs++
      await sleep(200) // the copies may arrive together: the second must wait for the first, not run beside it
    }, options({ idempotency: { redis, keyPrefix: unique('idem') } }))
    // act
    const run = drive(handler, queue)
    const settled = () =>
      run.answers.reduce((n, a) => n + a.event.Records.length - a.response.batchItemFailures.length, 0)
    await eventually(() => settled() === 2)
    await run.stop()
    // assess
    expect(runs).toBe(1)
    await sleep(1_200)
    expect(await receiveNow(queue.queueUrl)).toEqual([])
  })

  it('fails the job, without running it, when the idempotency store is unreachable', async () => {
    // prepare: a client to a port nobody listens on, failing commands at once instead of queueing them
    const down = new Redis({ host: '127.0.0.1', port: 1, lazyConnect: true, enableOfflineQueue: false, maxRetriesPerRequest: 0, retryStrategy: () => null })
    let runs = 0
    const handler = jobHandler(async () => void runs++, options({ backoff: false, idempotency: { redis: down } }))
    const record = toRecord({ MessageId: 'm1', ReceiptHandle: 'rh', Body: jobBody(unique('job'), {}), Attributes: { ApproximateReceiveCount: '1' } }, 'arn:aws:sqs:us-east-1:000000000000:idem-down')
    // act
    const response = await handler({ Records: [record] }, lambdaContext())
    // assess
    expect(response.batchItemFailures).toEqual([{ itemIdentifier: 'm1' }])
    expect(runs).toBe(0)
    down.disconnect()
  })

  it('runs a job again after its business code failed', async () => {
    // prepare
    const queue = await createQueue(unique('idem-fail'))
    const id = unique('job')
    await sendJob(queue.queueUrl, id, {})
    const attempts: number[] = []
    const handler = jobHandler(async (job) => {
      attempts.push(job.attempt)
      if (job.attempt === 1) throw new Error('first try fails')
    }, options({ idempotency: { redis, keyPrefix: unique('idem') } }))
    // act
    const run = drive(handler, queue)
    await eventually(() => attempts.length === 2)
    await run.stop()
    // assess
    expect(attempts).toEqual([1, 2])
  })
})
