// A write sent again with the write token of an earlier attempt that was applied (lua/enqueue.lua codes 3 and 4):
// nothing changes, and the answer is the one that attempt gave (created or replaced, due when it made the job due, on
// the queue it stored the job on), marked as a replay. The job may be stored still, or have left for SQS since (then
// its receipt answers).
import type { EnqueueResult } from './job-store'
import { decodeReceipt } from './receipt'
import { splitGroupLine } from './record'
import type { EnqueueReply } from './script-calls'

/** The answer of a write whose token an earlier attempt applied (lua/enqueue.lua codes 3 and 4), as that one gave. */
export function replayedResult(id: string, r: EnqueueReply): EnqueueResult {
  const stored = Number(r[0]) === 3
  const receipt = stored ? undefined : decodeReceipt(String(r[1]))
  const version = receipt ? (receipt.written?.version ?? 0) : Number(r[3])
  return {
    id,
    status: version === 0 ? 'created' : 'replaced',
    dueMs: receipt ? receipt.dueMs : Number(r[1]),
    createdAtMs: receipt ? receipt.createdAtMs : Number(r[2]),
    version,
    startScanner: false,
    replayed: stored ? 'stored' : 'dispatched',
    queue: receipt ? receipt.queue : String(r[4]),
    ...(stored ? { groupId: splitGroupLine(String(r[5] ?? '')).groupId ?? '' } : {}),
  }
}
