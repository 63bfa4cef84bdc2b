// The Lambda that schedules: an order is placed, and its "close if unpaid" job is scheduled on the delay queue's
// API through the signed client (the function's role may invoke its Function URL). The job id is the
// order's, so a retried request cannot schedule it twice: the API answers 409 with the job already there.
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda'
import { DelayQueueApiClient, JobConflictError } from 'serverless-delay-queue/api-client'

const delayQueue = DelayQueueApiClient.fromEnv() // DELAY_QUEUE_API_URL
const paymentWindowMs = Number(process.env.PAYMENT_WINDOW_MS ?? 15 * 60_000)

export async function handler(event: APIGatewayProxyEventV2): Promise<APIGatewayProxyStructuredResultV2> {
  const { orderId } = JSON.parse(event.body ?? '{}') as { orderId?: unknown }
  if (typeof orderId !== 'string' || !/^[A-Za-z0-9_-]{1,64}$/.test(orderId)) {
    return { statusCode: 400, body: JSON.stringify({ error: 'orderId must be 1-64 characters of [A-Za-z0-9_-]' }) }
  }
  try {
    const job = await delayQueue.schedule({
      id: `order-${orderId}:close`,
      queue: 'orders',
      payload: { orderId },
      delayMs: paymentWindowMs,
    })
    return { statusCode: 202, body: JSON.stringify({ orderId, closesAt: job.runAt }) }
  } catch (error) {
    if (error instanceof JobConflictError) {
      return { statusCode: 202, body: JSON.stringify({ orderId, closesAt: error.existing?.runAt }) }
    }
    throw error
  }
}
