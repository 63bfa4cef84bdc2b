// One SQS batch through Powertools batch processing: parse each record, run the job, report failures as
// batchItemFailures, and set each failed record's next attempt (backoff, or at once on its last receive) — all
// before the invocation's deadline.
import {
  BatchProcessor,
  EventType,
  processPartialResponse,
  SqsFifoPartialProcessorAsync,
} from '@aws-lambda-powertools/batch'
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda'
import { Semaphore } from '../shared/semaphore'
import type { BatchRun, BatchSettings, QueueTarget } from './batch-run'
import { batchDeadline } from './deadline'
import { deliveryAttempt } from './delivery'
import { isFifoArn, parseQueueArn, queueUrlFromArn } from './queue-arn'
import { LAST_ATTEMPT, recordHandler } from './record-handler'
import { maxReceiveCountOf } from './redrive-policy'
import { delayRetries, type RetryDelay } from './retry-delay'
import { maxVisibilitySeconds, retryPlan } from './retry-plan'

export type { BatchSettings, RunJob } from './batch-run'

export async function processJobBatch<Payload>(
  event: SQSEvent,
  context: Context,
  settings: BatchSettings<Payload>,
): Promise<SQSBatchResponse> {
  // Lateness is measured when the batch arrives, so waiting for a concurrency slot does not count as lateness.
  const receivedAtMs = Date.now()
  const deadline = batchDeadline(context, settings.deadlineMarginMs)
  const records = event.Records ?? []
  const arn = records[0]?.eventSourceARN ?? ''
  const target = queueTarget(arn, settings)
  const run: BatchRun<Payload> = {
    settings,
    context,
    deadline,
    receivedAtMs,
    retryIn: new Map(),
    maxReceiveCount: once(() => maxReceiveCount(settings, target, deadline.settleLeftMs())),
    maxVisibility: maxVisibilitySeconds(deadline.budgetSeconds),
    target,
  }
  try {
    const handleRecord = recordHandler(run)
    // Powertools' parallel mode starts every record at once, and a batch can hold up to 10,000 records (with a
    // batching window): too many for a database or an API.
    const slots = new Semaphore(settings.concurrency)
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
    if (response.batchItemFailures.length > 0) await settleRetries(records, response, run, target)
    return response
  } finally {
    deadline.dispose()
  }
}

function queueTarget<Payload>(arn: string, settings: BatchSettings<Payload>): QueueTarget | Error {
  try {
    const { region } = parseQueueArn(arn)
    return { url: settings.queueUrl ?? queueUrlFromArn(arn), sqs: settings.sqsFor(region) }
  } catch (error) {
    return error as Error
  }
}

/** Read when a record of the batch first fails (a batch that succeeds costs no call), then kept per container. */
function maxReceiveCount<Payload>(
  settings: BatchSettings<Payload>,
  target: QueueTarget | Error,
  settleLeftMs: number,
): Promise<number | null | undefined> {
  if (settings.maxReceiveCount !== undefined) return Promise.resolve(settings.maxReceiveCount)
  if (target instanceof Error) return Promise.resolve(undefined)
  // At most a third of the time left, so that the visibility changes still have theirs.
  const timeoutMs = Math.min(2_000, settleLeftMs / 3)
  return maxReceiveCountOf(target.sqs, target.url, timeoutMs, (reason) =>
    settings.logger.warn('cannot read the queue redrive policy: the last attempt is not recognised', { reason }),
  )
}

/** Sets the visibility of every failed record that has one planned, in time; records skipped in a FIFO group (never
 * run) are planned here. A change that cannot be made leaves the record failed with the queue's visibility. */
async function settleRetries<Payload>(
  records: SQSRecord[],
  response: SQSBatchResponse,
  run: BatchRun<Payload>,
  target: QueueTarget | Error,
): Promise<void> {
  const { settings } = run
  const byId = new Map(records.map((r) => [r.messageId, r]))
  const delays: RetryDelay[] = []
  for (const { itemIdentifier } of response.batchItemFailures) {
    const record = byId.get(itemIdentifier)
    if (!record) continue
    let seconds = run.retryIn.get(itemIdentifier)
    if (seconds === undefined && !run.retryIn.has(itemIdentifier)) seconds = await planSkipped(record, run)
    if (seconds !== undefined) delays.push({ record, seconds })
  }
  if (delays.length === 0) return
  if (target instanceof Error) {
    settings.logger.warn('cannot delay retries: no queue URL', { error: target })
    return
  }
  const { failed } = await delayRetries(target.sqs, target.url, delays, run.deadline.settleLeftMs())
  for (const f of failed) {
    settings.logger.warn('could not delay the retry: the queue visibility timeout applies', f)
  }
}

/** A FIFO record reported failed without running (an earlier message of its group failed in this batch). */
async function planSkipped<Payload>(record: SQSRecord, run: BatchRun<Payload>): Promise<number | undefined> {
  const attempt = deliveryAttempt(record)
  const maxReceiveCount = await run.maxReceiveCount()
  const plan = retryPlan({
    ...run.settings,
    attempt,
    kind: 'skipped',
    maxReceiveCount,
    maxVisibility: run.maxVisibility,
  })
  if (plan.lastAttempt) {
    run.settings.logger.error(LAST_ATTEMPT, {
      messageId: record.messageId,
      attempt,
      maxReceiveCount,
      reason: 'not run: an earlier message of its group failed in this batch',
    })
  }
  return plan.seconds
}

function once<T>(make: () => T): () => T {
  let made: { value: T } | undefined
  return () => {
    made ??= { value: make() }
    return made.value
  }
}
