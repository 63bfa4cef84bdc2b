// The business Lambda on the delay queue's "orders" target queue: when an order's payment window is over, ask the
// orders service to close it if it is still unpaid. A failure (the orders service down) throws: that job alone is
// retried, after a backoff, and lands in the DLQ after the queue's maxReceiveCount.
import { jobHandler } from 'serverless-delay-queue/consumer'

export interface CloseOrder {
  orderId: string
}

const ordersApi = process.env.ORDERS_API_URL ?? 'http://127.0.0.1:4000'

export const handler = jobHandler<CloseOrder>(
  async (job, { logger }) => {
    const res = await fetch(`${ordersApi}/orders/${encodeURIComponent(job.payload.orderId)}/close-if-unpaid`, {
      method: 'POST',
    })
    if (!res.ok) throw new Error(`orders service answered ${res.status}`)
    logger.info('order checked', { orderId: job.payload.orderId, lateMs: job.latenessMs })
  },
  {
    parsePayload: (payload) => {
      const orderId = (payload as Partial<CloseOrder> | null)?.orderId
      if (typeof orderId !== 'string') throw new TypeError('payload.orderId must be a string')
      return { orderId }
    },
    // Retries after ~2 s, ~4 s, ~8 s ... (the toolkit's default starts at 5 s).
    backoff: { baseSeconds: 2, capSeconds: 300 },
  },
)
