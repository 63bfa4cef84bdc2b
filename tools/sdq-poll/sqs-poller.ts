// A local stand-in for Lambda's SQS event source mapping: long-polls one queue, hands each batch to `invoke` as a
// real-looking SQSEvent, and settles it the way AWS does with ReportBatchItemFailures:
//   - invoke returns nothing / `{ batchItemFailures: [] }`  -> every record is deleted;
//   - invoke returns failures                               -> every record NOT listed is deleted;
//   - invoke returns an invalid answer (an empty or unknown itemIdentifier) or throws -> nothing is deleted,
//     the whole batch becomes visible again after the visibility timeout (and counts towards maxReceiveCount).
// Messages left undeleted are never touched again here: retries, backoff and the DLQ are SQS's business.
import {
  DeleteMessageBatchCommand,
  ReceiveMessageCommand,
  type Message,
  type MessageAttributeValue,
  type SQSClient,
} from '@aws-sdk/client-sqs'
import type { SQSBatchResponse, SQSEvent, SQSMessageAttributes, SQSRecord, SQSRecordAttributes } from 'aws-lambda'

export interface SqsPollerOptions {
  /** A client with an explicit `endpoint` (fauxqs queue URLs name hosts that do not resolve). */
  sqs: SQSClient
  queueUrl: string
  queueArn: string
  /** The "Lambda": receives the event, answers like a handler with ReportBatchItemFailures. */
  invoke: (event: SQSEvent) => Promise<SQSBatchResponse | void | undefined | null>
  /** Messages per event, 1-10 (one ReceiveMessage call). Default 10. */
  batchSize?: number
  /** Long-poll wait, 0-20 s. Default 1 s, so that stop() is quick even if an abort is not honoured. */
  waitTimeSeconds?: number
  /** Receive, invoke and delete errors land here (default: console.error). The poller keeps going. */
  onError?: (error: unknown) => void
}

export interface SqsPoller {
  /** Stops polling, waits for the batch in hand to be invoked and settled. */
  stop(): Promise<void>
}

/** Pause after a failed ReceiveMessage, so an endpoint that is down is not hammered. */
const RECEIVE_ERROR_PAUSE_MS = 500

export function startSqsPoller(options: SqsPollerOptions): SqsPoller {
  const { sqs, queueUrl, queueArn, invoke } = options
  const batchSize = Math.min(10, Math.max(1, options.batchSize ?? 10))
  const waitTimeSeconds = Math.min(20, Math.max(0, options.waitTimeSeconds ?? 1))
  const onError = options.onError ?? ((e: unknown) => console.error('[sqs-poller]', e))
  const awsRegion = regionOf(queueArn)
  const abort = new AbortController()
  let running = true

  const loop = async () => {
    while (running) {
      let messages: Message[]
      try {
        const out = await sqs.send(
          new ReceiveMessageCommand({
            QueueUrl: queueUrl,
            MaxNumberOfMessages: batchSize,
            WaitTimeSeconds: waitTimeSeconds,
            MessageSystemAttributeNames: ['All'],
            MessageAttributeNames: ['All'],
          }),
          { abortSignal: abort.signal },
        )
        messages = out.Messages ?? []
      } catch (error) {
        if (!running) return
        onError(error)
        await sleep(RECEIVE_ERROR_PAUSE_MS, abort.signal)
        continue
      }
      if (messages.length === 0) continue
      // A batch received is always invoked and settled, even when stop() came meanwhile: Lambda does not drop it.
      await settle(messages)
    }
  }

  const settle = async (messages: Message[]) => {
    const event: SQSEvent = { Records: messages.map((m) => toRecord(m, queueArn, awsRegion)) }
    let answer: SQSBatchResponse | void | undefined | null
    try {
      answer = await invoke(event)
    } catch (error) {
      onError(error)
      return
    }
    const failed = failedIds(answer, event)
    if (failed === 'all') {
      onError(new Error('invalid batchItemFailures (empty or unknown itemIdentifier): the whole batch is retried'))
      return
    }
    const done = event.Records.filter((r) => !failed.has(r.messageId))
    await deleteAll(done)
  }

  const deleteAll = async (records: SQSRecord[]) => {
    for (let i = 0; i < records.length; i += 10) {
      const chunk = records.slice(i, i + 10)
      try {
        const out = await sqs.send(
          new DeleteMessageBatchCommand({
            QueueUrl: queueUrl,
            Entries: chunk.map((r, n) => ({ Id: String(n), ReceiptHandle: r.receiptHandle })),
          }),
        )
        for (const f of out.Failed ?? []) onError(new Error(`DeleteMessageBatch entry ${f.Id} failed: ${f.Message}`))
      } catch (error) {
        onError(error)
      }
    }
  }

  const finished = loop()
  return {
    async stop() {
      running = false
      abort.abort()
      await finished
    },
  }
}

/** The set of message ids to keep, or 'all' when the answer is invalid (AWS then fails the whole batch). */
function failedIds(answer: SQSBatchResponse | void | undefined | null, event: SQSEvent): Set<string> | 'all' {
  const failures = answer?.batchItemFailures
  if (failures == null) return new Set()
  const known = new Set(event.Records.map((r) => r.messageId))
  const out = new Set<string>()
  for (const f of failures) {
    if (!f?.itemIdentifier || !known.has(f.itemIdentifier)) return 'all'
    out.add(f.itemIdentifier)
  }
  return out
}

/** One received message in the shape Lambda gives a handler. */
export function toRecord(m: Message, queueArn: string, awsRegion = regionOf(queueArn)): SQSRecord {
  const a = m.Attributes ?? {}
  const attributes: SQSRecordAttributes = {
    ApproximateReceiveCount: a.ApproximateReceiveCount ?? '1',
    SentTimestamp: a.SentTimestamp ?? String(Date.now()),
    SenderId: a.SenderId ?? 'LOCAL',
    ApproximateFirstReceiveTimestamp: a.ApproximateFirstReceiveTimestamp ?? String(Date.now()),
  }
  for (const k of ['AWSTraceHeader', 'SequenceNumber', 'MessageGroupId', 'MessageDeduplicationId'] as const) {
    if (a[k] !== undefined) attributes[k] = a[k]
  }
  const record: SQSRecord = {
    messageId: m.MessageId!,
    receiptHandle: m.ReceiptHandle!,
    body: m.Body ?? '',
    attributes,
    messageAttributes: toLambdaAttributes(m.MessageAttributes),
    md5OfBody: m.MD5OfBody ?? '',
    eventSource: 'aws:sqs',
    eventSourceARN: queueArn,
    awsRegion,
  }
  if (m.MD5OfMessageAttributes) record.md5OfMessageAttributes = m.MD5OfMessageAttributes
  return record
}

/** SDK shape (StringValue, BinaryValue as bytes) to Lambda's (stringValue, binaryValue as base64). */
function toLambdaAttributes(attrs: Record<string, MessageAttributeValue> | undefined): SQSMessageAttributes {
  const out: SQSMessageAttributes = {}
  for (const [name, v] of Object.entries(attrs ?? {})) {
    out[name] = {
      dataType: v.DataType ?? 'String',
      stringListValues: [],
      binaryListValues: [],
      ...(v.StringValue !== undefined ? { stringValue: v.StringValue } : {}),
      ...(v.BinaryValue !== undefined ? { binaryValue: Buffer.from(v.BinaryValue).toString('base64') } : {}),
    }
  }
  return out
}

/** arn:aws:sqs:<region>:<account>:<name> */
function regionOf(queueArn: string): string {
  return queueArn.split(':')[3] || 'us-east-1'
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve()
    const t = setTimeout(resolve, ms)
    signal.addEventListener(
      'abort',
      () => {
        clearTimeout(t)
        resolve()
      },
      { once: true },
    )
  })
}
