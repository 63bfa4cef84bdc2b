// Reference: what the SQS endpoint accepts when all we do is send. SendMessageBatch of 10 entries shaped exactly
// like the scanner's (same body builder, same jobId attribute, same sizes), as many calls in flight as the
// dispatcher allows (SEND_CONCURRENCY), over the same keep-alive client the scanner uses (createSqsClient).
// The burst drain rate is judged against this.
import { SendMessageBatchCommand, type SQSClient } from '@aws-sdk/client-sqs'
import { createSqsClient } from '../src/sqs/sqs-client'
import { JOB_ID_ATTRIBUTE, messageBody, messageBytes } from '../src/sqs/envelope'
import { PAYLOAD_JSON, TARGET, jobId } from './data'
import type { BenchEnv } from './env'
import { inFlight } from '../devkit/stats'

export interface RawSqsResult {
  messagesPerSec: number
  concurrency: number
  messageBytes: number
}

export async function measureRawSqs(
  env: BenchEnv,
  messages: number,
  rep: number,
  perBatch = 10,
  /** A client kept from one repetition to the next, as the scan function keeps its own; by default a new one. */
  kept?: SQSClient,
): Promise<RawSqsResult> {
  const queue = await env.queue('raw')
  const config = env.config(queue.url)
  const sqs = kept ?? createSqsClient(config)
  const now = Date.now()
  const entries = (batch: number) =>
    Array.from({ length: perBatch }, (_, i) => {
      const id = jobId(`s${rep}`, batch * perBatch + i)
      const body = messageBody({ id, queue: TARGET, payloadJson: PAYLOAD_JSON, dueMs: now, createdAtMs: now }, now)
      return {
        Id: `e${i}`,
        MessageBody: body,
        MessageAttributes: { [JOB_ID_ATTRIBUTE]: { DataType: 'String', StringValue: id } },
      }
    })
  const send = async (batch: number) => {
    const r = await sqs.send(new SendMessageBatchCommand({ QueueUrl: queue.url, Entries: entries(batch) }))
    if (r.Failed?.length) throw new Error(`SQS refused ${r.Failed.length} entries: ${r.Failed[0]!.Message}`)
  }
  try {
    // Warm up outside the timed part: open the keep-alive sockets, as a running scanner would have them, and let
    // both processes' JITs settle (a cold fauxqs measured at a third of its warm rate in trials).
    const warm = 300
    await inFlight(warm, config.sendConcurrency, (b) => send(b))
    const batches = Math.ceil(messages / perBatch)
    const started = performance.now()
    await inFlight(batches, config.sendConcurrency, (b) => send(warm + b))
    const seconds = (performance.now() - started) / 1000
    const sample = messageBody(
      { id: jobId('s', 0), queue: TARGET, payloadJson: PAYLOAD_JSON, dueMs: now, createdAtMs: now },
      now,
    )
    return {
      messagesPerSec: (batches * perBatch) / seconds,
      concurrency: config.sendConcurrency,
      messageBytes: messageBytes(sample, jobId('s', 0)),
    }
  } finally {
    if (!kept) sqs.destroy()
    await queue.remove()
  }
}
