// What an ack files beside each job it removes: its dispatch receipt (src/store/receipt.ts), built from the claim and
// SQS's answer, when receipts are on and the send's answer is known.
import { encodeReceipt, writeTokenDigest } from '../../store/receipt'
import type { AckSettlement, Settlement } from '../../store/scripts/ack'
import type { ClaimedJob } from './claimed-job'

/** Each acked job's dispatch receipt (src/store/receipt.ts), when receipts are on and the send's answer is known. */
export function withReceipts(items: readonly (Settlement & Partial<ClaimedJob>)[], ttlMs: number) {
  // The hour's hashes by the latest acceptance (Redis's clock): a receipt is never filed before its time.
  let nowMs = 0
  for (const i of items) if (i.accepted && i.accepted.acceptedAtMs > nowMs) nowMs = i.accepted.acceptedAtMs
  const settlements: AckSettlement[] = new Array(items.length)
  for (let k = 0; k < items.length; k++) {
    const { id, token, accepted, attempt, dueMs, queue, createdAtMs, version, writeToken } = items[k]!
    settlements[k] =
      ttlMs > 0 &&
      accepted &&
      attempt !== undefined &&
      dueMs !== undefined &&
      queue !== undefined &&
      createdAtMs !== undefined
        ? {
            id,
            token,
            receipt: encodeReceipt({
              messageId: accepted.messageId,
              acceptedAtMs: accepted.acceptedAtMs,
              attempts: attempt,
              dueMs,
              queue,
              createdAtMs,
              // The write token's digest goes with the job into its receipt: that write, sent again, is still recognised.
              written:
                writeToken && version !== undefined
                  ? { version, tokenDigest: writeTokenDigest(writeToken) }
                  : undefined,
            }),
          }
        : { id, token }
  }
  return { settlements, plan: { ttlMs, nowMs: nowMs || Date.now() } }
}
