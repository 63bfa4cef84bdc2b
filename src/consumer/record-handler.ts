// One record of a batch: parse it, run the job before the deadline, and on failure plan its retry and log one line.
import { IdempotencyAlreadyInProgressError, IdempotencyPersistenceLayerError } from '@aws-lambda-powertools/idempotency'
import type { SQSRecord } from 'aws-lambda'
import { JOB_ID_ATTRIBUTE } from '../sqs/envelope'
import { planFailure, type BatchRun } from './batch-run'
import { deliveryAttempt, jobLogKeys, toJob } from './delivery'
import { moveToDeadLetterQueue } from './dead-letter-now'
import { DeadLetterNowError, DeadlineError, MalformedMessageError, RetryLaterError } from './errors'
import { parseJobMessage } from './parse-message'
import type { Job } from './types'

export const LAST_ATTEMPT = 'last attempt: to the DLQ'

/** When it is tried again; nothing on the last attempt (SQS moves it to the DLQ: no retry to announce). */
const retryIn = (plan: { seconds?: number; lastAttempt: boolean }) =>
  plan.lastAttempt ? {} : { retryInSeconds: plan.seconds }

export function recordHandler<Payload>(run: BatchRun<Payload>): (record: SQSRecord) => Promise<unknown> {
  const { settings, deadline } = run
  const { logger } = settings
  const anyRun = run as BatchRun<unknown>
  return async (record) => {
    const attempt = deliveryAttempt(record)
    // The jobId attribute is readable even when the body is not: it tells an operator which job this was.
    const jobId = record.messageAttributes?.[JOB_ID_ATTRIBUTE]?.stringValue
    if (deadline.recordsLeftMs() <= 0) {
      const plan = await planFailure(anyRun, record.messageId, attempt, 'failed')
      const error = new DeadlineError(false)
      const line = { messageId: record.messageId, jobId, attempt, ...retryIn(plan), error }
      logger.warn(plan.lastAttempt ? LAST_ATTEMPT : 'job not started: the deadline was near', line)
      throw error
    }
    const parsed = await parseJobMessage(record.body, settings.parsePayload)
    if (!parsed.ok) {
      const plan = await planFailure(anyRun, record.messageId, attempt, 'malformed')
      const { reason, issues, issueCount } = parsed
      logger.error('malformed message', {
        messageId: record.messageId,
        jobId,
        attempt,
        reason,
        ...(issues ? { issues, issueCount } : {}),
        ...retryIn(plan),
        ...(plan.lastAttempt ? { lastAttempt: true, maxReceiveCount: plan.maxReceiveCount } : {}),
      })
      throw new MalformedMessageError(record.messageId, reason, issues)
    }
    const job = toJob(parsed.message, record, run.receivedAtMs)
    return runJob(run, job, record)
  }
}

async function runJob<Payload>(run: BatchRun<Payload>, job: Job<Payload>, record: SQSRecord): Promise<unknown> {
  const { settings, deadline } = run
  const { logger } = settings
  const keys = jobLogKeys(job)
  const jobLogger = logger.createChild({ persistentKeys: keys })
  const started = performance.now()
  let ran = false
  let done = false
  const hooks = { markRan: () => (ran = true), markDone: () => (done = true), msLeft: deadline.recordsLeftMs }
  try {
    await deadline.race(settings.run(job, { logger: jobLogger, lambdaContext: run.context, record }, hooks))
  } catch (error) {
    if (done && error instanceof IdempotencyPersistenceLayerError) {
      // The business code ran to its end; only the success record failed to reach Redis. Failing the record would
      // make SQS deliver it again, and it would run again: it is done, and a later duplicate may run it again.
      logger.warn('job done, but its idempotency record could not be saved: a later duplicate may run it again', {
        ...keys,
        error: error as Error,
      })
      return undefined
    }
    if (
      error instanceof DeadLetterNowError &&
      (await moveToDeadLetterQueue(run as BatchRun<unknown>, record, error.message))
    ) {
      logger.error('no retry can succeed: moved to the DLQ now', { ...keys, error })
      return undefined
    }
    const notBefore = error instanceof RetryLaterError ? error.afterSeconds : undefined
    const plan = await planFailure(run as BatchRun<unknown>, record.messageId, job.attempt, 'failed', notBefore)
    const extra = { ...keys, ...retryIn(plan), ...(settings.logPayload ? { payload: job.payload } : {}) }
    if (plan.lastAttempt) {
      logger.error(LAST_ATTEMPT, { ...extra, maxReceiveCount: plan.maxReceiveCount, error: error as Error })
    } else if (error instanceof IdempotencyAlreadyInProgressError) {
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
