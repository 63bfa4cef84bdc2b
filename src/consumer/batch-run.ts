// What one invocation's records share: the settings, the deadline, the queue, and the retry plan of each failure.
import type { Logger } from '@aws-lambda-powertools/logger'
import type { SQSClient } from '@aws-sdk/client-sqs'
import type { Context } from 'aws-lambda'
import type { BackoffPolicy } from './backoff'
import type { BatchDeadline } from './deadline'
import type { PayloadParser } from './payload-parser'
import { retryPlan, type FailureKind, type RetryPlan } from './retry-plan'
import type { Job, JobContext } from './types'

export interface RunHooks {
  /** The business code really starts (not an idempotent replay). */
  markRan(): void
  /** The business code returned. */
  markDone(): void
  /** Milliseconds left before the records' deadline. */
  msLeft(): number
}

/** Runs the business code for one job (through idempotency when it is on). */
export type RunJob<Payload> = (job: Job<Payload>, ctx: JobContext, hooks: RunHooks) => Promise<unknown>

export interface BatchSettings<Payload> {
  run: RunJob<Payload>
  parsePayload?: PayloadParser<Payload>
  concurrency: number
  backoff: BackoffPolicy | false
  malformedRetrySeconds: number
  /** The queue's maxReceiveCount when the caller knows it; else read from the queue. */
  maxReceiveCount?: number
  deadlineMarginMs: number
  queueUrl?: string
  sqsFor: (region: string) => SQSClient
  logger: Logger
  logPayload: boolean
}

export interface QueueTarget {
  url: string
  sqs: SQSClient
}

export interface BatchRun<Payload> {
  settings: BatchSettings<Payload>
  context: Context
  deadline: BatchDeadline
  /** When the batch arrived (lateness is measured from here). */
  receivedAtMs: number
  /** Visibility to set per failed message id (absent: the queue's visibility timeout applies). */
  retryIn: Map<string, number>
  /** The queue's maxReceiveCount (null: no DLQ; undefined: unknown); read at the batch's first failure, bounded in
   * time, then kept. */
  maxReceiveCount: () => Promise<number | null | undefined>
  maxVisibility: number
  /** The queue the batch came from (an Error when its ARN names none). */
  target: QueueTarget | Error
}

/** The plan for one failed record; records its visibility for the settle step. */
export async function planFailure(
  run: BatchRun<unknown>,
  messageId: string,
  attempt: number,
  kind: FailureKind,
  notBeforeSeconds?: number,
): Promise<RetryPlan & { maxReceiveCount: number | null | undefined }> {
  const { settings } = run
  const maxReceiveCount = await run.maxReceiveCount()
  const plan = retryPlan({
    attempt,
    kind,
    backoff: settings.backoff,
    malformedRetrySeconds: settings.malformedRetrySeconds,
    maxReceiveCount,
    maxVisibility: run.maxVisibility,
    notBeforeSeconds,
  })
  if (plan.seconds !== undefined) run.retryIn.set(messageId, plan.seconds)
  return { ...plan, maxReceiveCount }
}
