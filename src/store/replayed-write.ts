// A write sent again with the write token of an earlier attempt that was applied (EnqueueStatus.ReplayedStored and
// ReplayedDispatched of lua/enqueue.lua):
// nothing changes, and the answer is the one that attempt gave (created or replaced, due when it made the job due, on
// the queue it stored the job on), marked as a replay. The job may be stored still, or have left for SQS since (then
// its receipt answers).
import type { EnqueueResult } from './job-store'
import { decodeReceipt } from './receipt'
import { splitGroupLine } from './record'
import { type DecodedEnqueue, EnqueueStatus } from './scripts/enqueue'

type Replayed = Extract<DecodedEnqueue, { status: EnqueueStatus.ReplayedStored | EnqueueStatus.ReplayedDispatched }>

/** The answer of a write whose token an earlier attempt applied, as that one gave. */
export function replayedResult(id: string, r: Replayed): EnqueueResult {
  if (r.status === EnqueueStatus.ReplayedStored) {
    return {
      id,
      status: r.version === 0 ? 'created' : 'replaced',
      dueMs: r.dueMs,
      createdAtMs: r.createdAtMs,
      version: r.version,
      startScanner: false,
      replayed: 'stored',
      queue: r.queue,
      groupId: splitGroupLine(r.groupLine).groupId ?? '',
    }
  }
  const receipt = decodeReceipt(r.receipt)
  const version = receipt.written?.version ?? 0
  return {
    id,
    status: version === 0 ? 'created' : 'replaced',
    dueMs: receipt.dueMs,
    createdAtMs: receipt.createdAtMs,
    version,
    startScanner: false,
    replayed: 'dispatched',
    queue: receipt.queue,
  }
}
