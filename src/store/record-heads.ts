// Records without their payloads (lua/record-heads.lua): what the operator tools need to count and list by queue,
// at a cost per call that does not grow with payload sizes. Only the header (queue, times, group) and at most
// `previewBytes` of each payload cross the network; in Redis, each call reads at most BUDGET_BYTES of records.
import { recordHeadsCall } from './ops-script-calls'
import { runScript, type ScriptedClient } from './scripts'

/** Ids per call: bounds the request, and what a call cut short by the budget sends again. */
const IDS_PER_CALL = 100
/** Bytes of records one call reads inside Redis (4 records of 1 MiB): keeps each script short. */
const BUDGET_BYTES = 4 * 1_048_576

export interface RecordHead {
  /** The record up to its header and `previewBytes` of its payload: decodeRecord / decodeScheduleRecord read it. */
  head: string
  /** The payload's whole length in bytes. */
  payloadBytes: number
}

/** The heads of `ids` in the hash `records` (a shard's jobs or schedules), in order; null where there is none. */
export async function readRecordHeads(
  redis: ScriptedClient,
  records: string,
  ids: readonly string[],
  options: { headerLines: number; previewBytes: number },
): Promise<(RecordHead | null)[]> {
  const heads: (RecordHead | null)[] = []
  while (heads.length < ids.length) {
    const batch = ids.slice(heads.length, heads.length + IDS_PER_CALL)
    const reply = await runScript(
      redis,
      recordHeadsCall(records, { ...options, budgetBytes: BUDGET_BYTES, ids: batch }),
    )
    for (let i = 0; i < reply.length; i += 2) {
      const payloadBytes = Number(reply[i + 1])
      const head = String(reply[i])
      heads.push(head === '' && payloadBytes < 0 ? null : { head, payloadBytes })
    }
  }
  return heads
}

/** A payload's first bytes as text, "…" when cut: a UTF-8 character cut in two is dropped, not shown as U+FFFD. */
export function previewText(payloadPart: string, payloadBytes: number, previewBytes: number): string {
  if (payloadBytes <= previewBytes) return payloadPart
  return `${payloadPart.replace(/\uFFFD+$/, '')}…`
}
