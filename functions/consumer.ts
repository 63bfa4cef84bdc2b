// Example business Lambda on the default target queue: what a user writes with the consumer toolkit.
// It only logs each job and how late it arrived; replace the body with real work (close the order, send the email).
// A throw fails that job alone: it is retried with backoff, then moves to the queue's DLQ after maxReceiveCount. A
// payload with "fail": true makes it throw, to see that happen locally.
import { jobHandler } from '../src/consumer'
import { createLogger } from '../src/logger'

// Module scope: built once per container. SQS_ENDPOINT is set for local runs only (fauxqs).
const logger = createLogger('example-consumer')

export const handler = jobHandler(
  async (job, { logger }) => {
    logger.info('job received', { runAt: job.runAt, dispatchedAt: job.dispatchedAt, latenessMs: job.latenessMs })
    // A switch to watch a failure locally: the job is retried with backoff, then moves to the DLQ (docs/local.md).
    if (asksToFail(job.payload)) throw new Error('the payload asked this example consumer to fail ("fail": true)')
  },
  { logger },
)

function asksToFail(payload: unknown): boolean {
  return typeof payload === 'object' && payload !== null && (payload as { fail?: unknown }).fail === true
}
