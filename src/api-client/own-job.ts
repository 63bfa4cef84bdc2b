// Creates that a retry cannot duplicate. A create the API answered 503 ReplicationUnconfirmed is on the Redis primary
// already, and one whose answer was lost may be too: sent again without an id, it would store a second job. So the
// client gives every job its id before the first attempt, and sends it with the call's Idempotency-Key (kept with the
// job under its id): a retry of a create the API applied is answered as that create, never stored again.
import type { JobInput } from '../contract/job'
import { newJobId } from '../store/ids'

export type JobWithId = JobInput & { id: string }

/** The job as it will be sent, with a time-ordered id when the caller gave none (the same form the API generates). */
export function withId(job: JobInput): JobWithId {
  return job.id === undefined ? { ...job, id: newJobId() } : (job as JobWithId)
}
