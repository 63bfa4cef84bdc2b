// A parsed message plus what the record says about this delivery.
import type { SQSRecord } from 'aws-lambda'
import type { JobMessage } from '../sqs/envelope'
import type { Job } from './types'

export function toJob<Payload>(message: JobMessage<Payload>, record: SQSRecord, receivedAtMs: number): Job<Payload> {
  const job: Job<Payload> = {
    ...message,
    messageId: record.messageId,
    attempt: deliveryAttempt(record),
    latenessMs: receivedAtMs - Date.parse(message.runAt),
  }
  if (record.attributes?.MessageGroupId) job.groupId = record.attributes.MessageGroupId
  return job
}

/** Which delivery of its message this record is: 1 on the first (SQS's ApproximateReceiveCount). */
export function deliveryAttempt(record: SQSRecord): number {
  return Number(record.attributes?.ApproximateReceiveCount) || 1
}

/** The fields every log line about a job carries (never the payload). */
export function jobLogKeys(job: Job<unknown>): Record<string, string | number> {
  return {
    jobId: job.id,
    queue: job.queue,
    attempt: job.attempt,
    latenessMs: job.latenessMs,
    messageId: job.messageId,
    ...(job.groupId ? { groupId: job.groupId } : {}),
    ...(job.scheduleId ? { scheduleId: job.scheduleId } : {}),
  }
}
