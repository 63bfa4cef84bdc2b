// The business Lambda on the "webhooks" target queue: one delivery attempt per job; schedules the next on failure.
import type { DelayQueue } from '../../src/direct/delay-queue'
import { JobExistsError } from '../../src/errors'
import { jobHandler, type JobHandlerOptions } from '../../src/consumer'
import { attemptJobId, MAX_ATTEMPTS, MINUTE_MS, retryDelayMs, type AttemptPayload } from './app'
import type { Deliveries } from './deliveries'

export interface WebhookHandlerDeps {
  queue: DelayQueue
  deliveries: Deliveries
  /** Compressed time in tests; a real minute in production. */
  minuteMs?: number
  timeoutMs?: number
}

export function deliverWebhookHandler(deps: WebhookHandlerDeps, options: JobHandlerOptions<AttemptPayload> = {}) {
  return jobHandler<AttemptPayload>(async ({ payload }, { logger }) => {
    const delivery = deps.deliveries.get(payload.deliveryId)
    if (delivery?.state !== 'pending') return // duplicate delivery of a settled notification
    const status = await post(payload.url, payload.body, deps.timeoutMs ?? 10_000)
    delivery.attempts.push({ at: Date.now(), status })
    if (typeof status === 'number' && status >= 200 && status < 300) {
      delivery.state = 'delivered'
      return
    }
    if (payload.attempt >= MAX_ATTEMPTS) {
      delivery.state = 'failed'
      logger.warn('webhook failed for good', { deliveryId: payload.deliveryId, attempts: payload.attempt })
      return
    }
    const next: AttemptPayload = { ...payload, attempt: payload.attempt + 1 }
    try {
      await deps.queue.schedule({
        id: attemptJobId(payload.deliveryId, next.attempt),
        queue: 'webhooks',
        payload: next,
        delayMs: retryDelayMs(payload.attempt, deps.minuteMs ?? MINUTE_MS),
      })
    } catch (e) {
      if (!(e instanceof JobExistsError)) throw e // a failed schedule fails this record: SQS retries it
    }
  }, options)
}

async function post(url: string, body: unknown, timeoutMs: number): Promise<number | string> {
  try {
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(timeoutMs),
    })
    return res.status
  } catch (e) {
    return e instanceof Error ? e.message : String(e)
  }
}
