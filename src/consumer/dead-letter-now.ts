// A record no retry can help (the business code threw DeadLetterNowError: a 400 from a called service) goes to its
// queue's DLQ at once, a copy sent by the toolkit, and is then reported done so the event source mapping deletes it.
// Without this it would be called again on every remaining receive, up to maxReceiveCount times.
import { SendMessageCommand, type MessageAttributeValue } from '@aws-sdk/client-sqs'
import type { SQSRecord } from 'aws-lambda'
import type { BatchRun } from './batch-run'
import { withinMs } from './deadline'
import { isFifoArn, queueUrlFromArn } from './queue-arn'
import { deadLetterArnOf } from './redrive-policy'

/** The message attribute the DLQ copy carries: why it was moved (the error's message, cut to 1,000 characters). */
export const DEAD_LETTER_REASON_ATTRIBUTE = 'sdqDeadLetterReason'

/** Whether the copy reached the DLQ; false (never a throw) when the queue has no DLQ or the send failed. */
export async function moveToDeadLetterQueue(
  run: BatchRun<unknown>,
  record: SQSRecord,
  reason: string,
): Promise<boolean> {
  const { target, settings, deadline } = run
  if (target instanceof Error) return false
  const timeoutMs = Math.min(5_000, deadline.settleLeftMs() / 2)
  const warn = (why: string) => settings.logger.warn('cannot move the record to the DLQ now', { reason: why })
  try {
    const dlqArn = await deadLetterArnOf(target.sqs, target.url, timeoutMs, warn)
    if (!dlqArn) return false
    const dlqUrl = queueUrlFromArn(dlqArn)
    const groupId = record.attributes?.MessageGroupId
    await withinMs(deadline.settleLeftMs() / 2, (abortSignal) =>
      target.sqs.send(
        new SendMessageCommand({
          QueueUrl: dlqUrl,
          MessageBody: record.body,
          MessageAttributes: {
            ...copyAttributes(record),
            [DEAD_LETTER_REASON_ATTRIBUTE]: { DataType: 'String', StringValue: reason.slice(0, 1_000) || 'unknown' },
          },
          ...(isFifoArn(dlqArn)
            ? { MessageGroupId: groupId ?? record.messageId, MessageDeduplicationId: record.messageId }
            : {}),
        }),
        { abortSignal },
      ),
    )
    return true
  } catch (error) {
    warn(error instanceof Error ? error.message : String(error))
    return false
  }
}

function copyAttributes(record: SQSRecord): Record<string, MessageAttributeValue> {
  const out: Record<string, MessageAttributeValue> = {}
  for (const [name, a] of Object.entries(record.messageAttributes ?? {})) {
    if (a.stringValue !== undefined) out[name] = { DataType: a.dataType, StringValue: a.stringValue }
    else if (a.binaryValue !== undefined)
      out[name] = { DataType: a.dataType, BinaryValue: Buffer.from(a.binaryValue, 'base64') }
  }
  return out
}
