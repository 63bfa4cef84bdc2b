// Call builders of the scripts only the operator tools run (src/ops/), beside src/store/script-calls.ts and in the
// same form: KEYS and ARGV by name, in the order of the script's header.
import type { ScriptCall } from './scripts'

/** lua/record-heads.lua: { head, payloadBytes, ... } for the first ids, as far as the budget went. */
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
