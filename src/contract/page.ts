// Pages of pending jobs, in due-time order (GET /jobs, DelayQueue.listPending): a snapshot of a moving queue.

export interface PendingJob {
  id: string
  queue: string
  runAt: string
  groupId?: string
  createdAt: string
  payloadBytes: number
}

export interface PendingPage {
  jobs: PendingJob[]
  /** Pass it back for the next page; null at the end. A page for one queue may be short and still have a cursor. */
  cursor: string | null
}
