// A callback (QStash-style): when a job of an HTTP target queue ends, delivered or not, its success or failure URL gets
// a POST about it. It is itself an HTTP job on the same queue (signed, retried, guarded the same way) with an id
// derived from the job's, so a forwarder that handles the job twice schedules its callback once (the second is a 409).
import { createHash } from 'node:crypto'
import type { Job } from '../consumer'

export interface CallbackJob {
  id: string
  queue: string
  payload: { url: string; method: 'POST'; body: CallbackBody }
}

export interface CallbackBody {
  type: 'delayqueue.job.succeeded' | 'delayqueue.job.failed'
  jobId: string
  queue: string
  outcome: string
  status?: number
  attempts: number
  excerpt?: string
  reason?: string
}

const CALLBACK_ID = /:cb-(?:success|failure)$/

/**
 * A callback goes where the job's creator said, not to the queue's target: the queue's default headers (a partner's
 * credentials, its content-type) are not sent with it. Known by its id (a job named so by hand is treated alike).
 */
export function isCallbackId(id: string): boolean {
  return CALLBACK_ID.test(id)
}

export function callbackJob(
  job: Job<unknown>,
  kind: 'success' | 'failure',
  url: URL,
  result: Omit<CallbackBody, 'type' | 'jobId' | 'queue'>,
): CallbackJob {
  const suffix = `:cb-${kind}`
  // Job ids are at most 128 characters: a long one is shortened to a digest (still one id per job and kind).
  const id =
    job.id.length + suffix.length <= 128
      ? `${job.id}${suffix}`
      : `${createHash('sha256').update(job.id).digest('hex').slice(0, 40)}${suffix}`
  const body: CallbackBody = {
    type: kind === 'success' ? 'delayqueue.job.succeeded' : 'delayqueue.job.failed',
    jobId: job.id,
    queue: job.queue,
    ...stripUndefined(result),
  }
  return { id, queue: job.queue, payload: { url: url.href, method: 'POST', body } }
}

function stripUndefined<T extends object>(o: T): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T
}
