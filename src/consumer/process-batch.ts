// One SQS batch through Powertools batch processing: parse each record, run the job, report failures as
// batchItemFailures, and push each failed record's next attempt out with backoff.
import {
  BatchProcessor,
  EventType,
  processPartialResponse,
  SqsFifoPartialProcessorAsync,
} from '@aws-lambda-powertools/batch'
import { IdempotencyAlreadyInProgressError } from '@aws-lambda-powertools/idempotency'
import type { Logger } from '@aws-lambda-powertools/logger'
import type { SQSClient } from '@aws-sdk/client-sqs'
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda'
import { JOB_ID_ATTRIBUTE } from '../sqs/envelope'
import { Semaphore } from '../semaphore'
import { backoffSeconds, type BackoffPolicy } from './backoff'
import { deliveryAttempt, jobLogKeys, toJob } from './delivery'
import { MalformedMessageError } from './errors'
import { parseJobMessage } from './parse-message'
import { isFifoArn, parseQueueArn, queueUrlFromArn } from './queue-arn'
import { delayRetries } from './retry-delay'
import type { Job, JobContext } from './types'

/** Runs the business code for one job; `markRan` is called when it really runs (not an idempotent replay). */
export type RunJob<Payload> = (job: Job<Payload>, ctx: JobContext, markRan: () => void) => Promise<unknown>

export interface BatchSettings<Payload> {
  run: RunJob<Payload>
  parsePayload?: (payload: unknown) => Payload
  concurrency: number
  backoff: BackoffPolicy | false
  malformedRetrySeconds: number
  queueUrl?: string
  sqsFor: (region: string) => SQSClient
  logger: Logger
  logPayload: boolean
}

export async function processJobBatch<Payload>(
  event: SQSEvent,
  context: Context,
  settings: BatchSettings<Payload>,
): Promise<SQSBatchResponse> {
  // Lateness is measured when the batch arrives, so waiting for a concurrency slot does not count as lateness.
  const receivedAtMs = Date.now()
  const { logger } = settings
  /** Next-attempt delay of each record that failed by itself (FIFO records skipped after a failure have none). */
  const retryIn = new Map<string, number>()

  const handleRecord = async (record: SQSRecord): Promise<unknown> => {
    const attempt = deliveryAttempt(record)
    const parsed = parseJobMessage(record.body, settings.parsePayload)
    if (!parsed.ok) {
      retryIn.set(record.messageId, settings.malformedRetrySeconds)
      // The jobId attribute is readable even when the body is not: it tells an operator which job this was.
      const jobId = record.messageAttributes?.[JOB_ID_ATTRIBUTE]?.stringValue
      logger.error('malformed message', { messageId: record.messageId, jobId, attempt, reason: parsed.reason })
      throw new MalformedMessageError(record.messageId, parsed.reason)
    }
    const job = toJob(parsed.message, record, receivedAtMs)
    const keys = jobLogKeys(job)
    const jobLogger = logger.createChild({ persistentKeys: keys })
    const started = performance.now()
    let ran = false
    try {
      await settings.run(job, { logger: jobLogger, lambdaContext: context, record }, () => (ran = true))
    } catch (error) {
      const seconds = settings.backoff ? backoffSeconds(job.attempt, settings.backoff) : undefined
      if (seconds !== undefined) retryIn.set(record.messageId, seconds)
      const extra = { ...keys, retryInSeconds: seconds, ...(settings.logPayload ? { payload: job.payload } : {}) }
      if (error instanceof IdempotencyAlreadyInProgressError) {
        logger.warn('duplicate delivery while the job is running elsewhere: retried later', extra)
      } else {
        logger.error('job failed', { ...extra, error: error as Error })
      }
      throw error
    }
    const durationMs = Math.round(performance.now() - started)
    if (ran) logger.info('job done', { ...keys, durationMs })
    else logger.info('duplicate delivery: job already done, business code skipped', keys)
    return undefined
  }

  const records = event.Records ?? []
  // Powertools' parallel mode starts every record at once, and a batch can hold up to 10,000 records (with a
  // batching window): too many for a database or an API.
  const slots = new Semaphore(settings.concurrency)
  const arn = records[0]?.eventSourceARN ?? ''
  const response = isFifoArn(arn)
    ? await processPartialResponse(event, handleRecord, new SqsFifoPartialProcessorAsync(), {
        context,
        // Stop only the failed record's group; other groups in the batch go on (order is per group).
        skipGroupOnError: true,
        throwOnFullBatchFailure: false,
      })
    : await processPartialResponse(
        event,
        (record: SQSRecord) => slots.run(() => handleRecord(record)),
        new BatchProcessor(EventType.SQS),
        { context, processInParallel: true, throwOnFullBatchFailure: false },
      )

  if (settings.backoff !== false && response.batchItemFailures.length > 0) {
    await backOff(records, response, retryIn, settings)
  }
  return response
}

async function backOff<Payload>(
  records: SQSRecord[],
  response: SQSBatchResponse,
  retryIn: Map<string, number>,
  settings: BatchSettings<Payload>,
): Promise<void> {
  const policy = settings.backoff as BackoffPolicy
  const byId = new Map(records.map((r) => [r.messageId, r]))
  const delays = response.batchItemFailures.flatMap(({ itemIdentifier }) => {
    const record = byId.get(itemIdentifier)
    if (!record) return []
    const attempt = deliveryAttempt(record)
    return [{ record, seconds: retryIn.get(itemIdentifier) ?? backoffSeconds(attempt, policy) }]
  })
  const arn = delays[0]?.record.eventSourceARN
  if (!arn) return
  let queueUrl: string
  let region: string
  try {
    region = parseQueueArn(arn).region
    queueUrl = settings.queueUrl ?? queueUrlFromArn(arn)
  } catch (error) {
    settings.logger.warn('cannot delay retries: no queue URL', { error: error as Error })
    return
  }
  const { failed } = await delayRetries(settings.sqsFor(region), queueUrl, delays)
  for (const f of failed) {
    settings.logger.warn('could not delay the retry: the queue visibility timeout applies', f)
  }
}
