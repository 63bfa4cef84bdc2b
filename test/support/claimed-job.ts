// A job as a claim hands it to the scanner, for the unit tests of what comes after a claim (backoff, the FIFO merge,
// the dispatcher): a FIFO job of group 'g' in 'q.fifo', first attempt, shard 0; `set` gives what the test is about.
import type { ClaimedJob } from '../../src/scan/claims/claimed-job'

export function claimedJob(id: string, set: Partial<ClaimedJob> = {}): ClaimedJob {
  return {
    id,
    queue: 'q.fifo',
    groupId: 'g',
    payloadJson: '{}',
    createdAtMs: 0,
    version: 0,
    dueMs: 0,
    orderMs: 0,
    claimedAtMs: 0,
    attempt: 1,
    token: 't',
    shard: 0,
    leaseDeadline: 0,
    ...set,
  }
}
