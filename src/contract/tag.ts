// The jobs with a tag (GET /jobs?tag=, DelayQueue.listByTag), in id order, and what cancelling them did.
import type { PendingJob } from './page'

/** A pending list's row, with the job's status (a retry due counts as scheduled) and its tags. */
export interface TaggedJob extends PendingJob {
  status: 'scheduled' | 'dispatching' | 'dead'
  tags: string[]
}

export interface TagPage {
  jobs: TaggedJob[]
  /** Pass it back for the next page; null at the end. */
  cursor: string | null
}
