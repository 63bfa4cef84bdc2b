// The business Lambda on the "orders" target queue: closes the order if it is still unpaid.
import { jobHandler, type JobHandlerOptions } from '../../src/consumer'
import type { Orders } from './orders'

export interface ClosePayload {
  orderId: string
}

export function closeUnpaidOrderHandler(orders: Orders, options: JobHandlerOptions<ClosePayload> = {}) {
  return jobHandler<ClosePayload>(async (job, { logger }) => {
    // Conditional: a payment that raced the close job wins, and a duplicate delivery changes nothing.
    const closed = orders.transition(job.payload.orderId, 'awaiting-payment', 'closed')
    logger.info(closed ? 'order closed: not paid in time' : 'order no longer awaiting payment', {
      orderId: job.payload.orderId,
    })
  }, options)
}
