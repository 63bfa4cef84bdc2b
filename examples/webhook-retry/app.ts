// Seed scenario: a webhook notification retried up to 10 times at intervals of n*2+1 minutes, then marked failed.
//
// The retries are jobs of their own, not SQS redeliveries: SQS can only retry at a fixed visibility timeout, while
// the delay queue schedules each next attempt exactly when the policy says.
import type { DelayQueue } from '../../src/direct/delay-queue'
import type { Deliveries } from './deliveries'

export const MAX_ATTEMPTS = 10
export const MINUTE_MS = 60_000

/** Wait after failed attempt n (1-based): n*2+1 minutes, so 3, 5, 7, ... 19 minutes. */
export const retryDelayMs = (attempt: number, minuteMs = MINUTE_MS) => (attempt * 2 + 1) * minuteMs

export interface AttemptPayload {
  deliveryId: string
  url: string
  body: unknown
  attempt: number
}

/** Attempt ids derive from the delivery, so a handler that runs twice cannot schedule an attempt twice. */
export const attemptJobId = (deliveryId: string, attempt: number) => `webhook-${deliveryId}:${attempt}`

export async function notify(
  queue: DelayQueue,
  deliveries: Deliveries,
  deliveryId: string,
  url: string,
  body: unknown,
) {
  deliveries.create(deliveryId, url)
  const payload: AttemptPayload = { deliveryId, url, body, attempt: 1 }
  await queue.schedule({ id: attemptJobId(deliveryId, 1), queue: 'webhooks', payload })
}
