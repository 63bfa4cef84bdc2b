// lua/record-heads.lua's whole contract on the TypeScript side: the call (KEYS and ARGV by name, in the header's
// order) and the reply read into one head per id (decodeRecordHeads).
import type { ScriptCall } from '../scripts'

/**
 * lua/record-heads.lua: { head, payloadBytes, ... } for the first ids, as far as the budget went. Read it with
 * decodeRecordHeads.
 */
export type RecordHeadsReply = (string | number)[]

export interface RecordHeadsParams {
  /** The "\n"-ended lines before a record's payload (RECORD_HEADER_LINES, SCHEDULE_HEADER_LINES). */
  headerLines: number
  /** How much of each payload to return (0: none). */
  previewBytes: number
  /** Bytes of records one call reads at most in Redis (the first record is always read). */
  budgetBytes: number
  ids: readonly string[]
}

/** `records`: a shard's jobs or schedules hash (src/store/keys.ts). */
export function recordHeadsCall(records: string, p: RecordHeadsParams): ScriptCall<RecordHeadsReply> {
  return {
    script: 'sdqRecordHeads',
    keys: { records },
    args: { headerLines: p.headerLines, previewBytes: p.previewBytes, budgetBytes: p.budgetBytes, ids: p.ids },
  }
}

export interface RecordHead {
  /** The record up to its header and `previewBytes` of its payload: decodeRecord / decodeScheduleRecord read it. */
  head: string
  /** The payload's whole length in bytes. */
  payloadBytes: number
}

/** The heads a reply carries, in the order of its ids: null where there is no such record. */
export function decodeRecordHeads(reply: RecordHeadsReply): (RecordHead | null)[] {
  const heads: (RecordHead | null)[] = []
  for (let i = 0; i < reply.length; i += 2) {
    const payloadBytes = Number(reply[i + 1])
    const head = String(reply[i])
    heads.push(head === '' && payloadBytes < 0 ? null : { head, payloadBytes })
  }
  return heads
}
