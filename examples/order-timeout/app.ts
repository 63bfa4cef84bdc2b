// Seed scenario: an order not paid within 15 minutes is closed; paying cancels the job.
import type { DelayQueue } from '../../src/direct/delay-queue'
import { JobDispatchingError, JobNotFoundError } from '../../src/errors'
import type { Orders } from './orders'

export const PAYMENT_WINDOW_MS = 15 * 60_000

/** One close job per order, with an id derived from the order: placing twice cannot schedule it twice. */
export const closeJobId = (orderId: string) => `order-${orderId}:close`

export async function placeOrder(queue: DelayQueue, orders: Orders, orderId: string, windowMs = PAYMENT_WINDOW_MS) {
  orders.create(orderId)
  await queue.schedule({ id: closeJobId(orderId), queue: 'orders', payload: { orderId }, delayMs: windowMs })
}

export async function payOrder(queue: DelayQueue, orders: Orders, orderId: string): Promise<boolean> {
  if (!orders.transition(orderId, 'awaiting-payment', 'paid')) return false
  try {
    await queue.cancel(closeJobId(orderId))
  } catch (e) {
    // Too late to cancel (already in SQS or on its way): harmless, the handler sees the order is paid.
    if (!(e instanceof JobNotFoundError || e instanceof JobDispatchingError)) throw e
  }
  return true
}
