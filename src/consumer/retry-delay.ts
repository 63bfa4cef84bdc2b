// Delays the next attempt of failed records by changing their visibility timeout. Without this, SQS re-delivers a
// failed message as soon as the queue's visibility timeout runs out, whatever the attempt: a dependency that is
// down gets hammered at a fixed rate and maxReceiveCount is used up in minutes.
import { ChangeMessageVisibilityBatchCommand, type SQSClient } from '@aws-sdk/client-sqs'
import type { SQSRecord } from 'aws-lambda'
import { withinMs } from './deadline'

export interface RetryDelay {
  record: SQSRecord
  seconds: number
}

export interface RetryDelayOutcome {
  /** Message ids whose visibility could not be changed (they keep the queue's visibility timeout). */
  failed: { messageId: string; reason: string }[]
}

/** Never throws: a failed change only means the message comes back sooner, which is not worth failing the batch.
 * Every call ends within `timeoutMs` (the invocation's deadline), answered or not. */
export async function delayRetries(
  sqs: SQSClient,
  queueUrl: string,
  delays: RetryDelay[],
  timeoutMs: number,
): Promise<RetryDelayOutcome> {
  const failed: RetryDelayOutcome['failed'] = []
  const chunks: RetryDelay[][] = []
  for (let i = 0; i < delays.length; i += 10) chunks.push(delays.slice(i, i + 10))
  await Promise.all(
    chunks.map(async (chunk) => {
      try {
        const out = await withinMs(timeoutMs, (abortSignal) =>
          sqs.send(
            new ChangeMessageVisibilityBatchCommand({
              QueueUrl: queueUrl,
              Entries: chunk.map((d, n) => ({
                Id: String(n),
                ReceiptHandle: d.record.receiptHandle,
                VisibilityTimeout: d.seconds,
              })),
            }),
            { abortSignal },
          ),
        )
        for (const f of out.Failed ?? []) {
          failed.push({ messageId: chunk[Number(f.Id)]!.record.messageId, reason: f.Message ?? f.Code ?? 'unknown' })
        }
      } catch (error) {
        const reason = error instanceof Error ? error.message : String(error)
        for (const d of chunk) failed.push({ messageId: d.record.messageId, reason })
      }
    }),
  )
  return { failed }
}
