// When a failed record comes back: after its backoff, at once on its last receive (SQS then moves it to the DLQ),
// and never later than SQS accepts.
import { backoffSeconds, MAX_VISIBILITY_SECONDS, type BackoffPolicy } from './backoff'

/**
 * SQS limits a message's visibility to 12 h from the receive that gave this receipt, and rejects a change beyond it.
 * The record does not say when that receive was: the event source mapping may hold a batch up to its 300 s batching
 * window before invoking, and the invocation lasts up to its budget. Both are taken off, plus 30 s of slack.
 */
export const RECEIPT_SLACK_SECONDS = 330

export function maxVisibilitySeconds(budgetSeconds: number): number {
  return Math.max(0, MAX_VISIBILITY_SECONDS - RECEIPT_SLACK_SECONDS - Math.ceil(budgetSeconds))
}

export type FailureKind = 'failed' | 'malformed' | 'skipped'

export interface RetryPlanInput {
  attempt: number
  kind: FailureKind
  backoff: BackoffPolicy | false
  malformedRetrySeconds: number
  /** From the redrive policy; null: no DLQ; undefined: not known. */
  maxReceiveCount: number | null | undefined
  maxVisibility: number
  random?: () => number
  /** The business code asked for at least this long (RetryLaterError: a Retry-After). */
  notBeforeSeconds?: number
}

export interface RetryPlan {
  /** The visibility to set, or undefined to leave the queue's visibility timeout. */
  seconds?: number
  /** This receive was the last before the DLQ. */
  lastAttempt: boolean
}

export function retryPlan(input: RetryPlanInput): RetryPlan {
  const { attempt, maxReceiveCount } = input
  if (typeof maxReceiveCount === 'number' && attempt >= maxReceiveCount) return { seconds: 0, lastAttempt: true }
  if (input.kind === 'malformed')
    return { seconds: Math.min(input.malformedRetrySeconds, input.maxVisibility), lastAttempt: false }
  const asked = input.notBeforeSeconds === undefined ? undefined : Math.ceil(Math.max(0, input.notBeforeSeconds))
  if (!input.backoff) {
    return asked === undefined
      ? { lastAttempt: false }
      : { seconds: Math.min(asked, input.maxVisibility), lastAttempt: false }
  }
  const backoff = backoffSeconds(attempt, input.backoff, input.random)
  const seconds = Math.min(Math.max(backoff, asked ?? 0), input.maxVisibility)
  return { seconds, lastAttempt: false }
}
