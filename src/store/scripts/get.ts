// lua/get.lua's whole contract on the TypeScript side: the call (KEYS and ARGV by name, in the header's order) and
// the reply read into named fields (decodeGet).
import type { JobState } from '../job-state'
import { receiptSlot, type JobLocation } from '../keys'
import type { ScriptCall } from '../scripts'

/** lua/get.lua: { state, record, score, attempt, lastError }, { 'dispatched', receipt }, or null. Read it with decodeGet. */
export type GetReply = [JobState, string, string, string | number, string] | ['dispatched', string] | null

/** A get reply, read: no such job (null), a job SQS took (its receipt, encoded), or a stored job. */
export type DecodedGet =
  | null
  | { state: 'dispatched'; receipt: string }
  | {
      state: JobState
      record: string
      /** What the state's time is (lua/get.lua): the due time, the next attempt's, or when it died. */
      score: number
      attempt: number
      /** The last dispatch error, encoded; '' for none. */
      lastError: string
    }

/** `receiptHours`: the hours whose receipt hashes to search, newest first (src/store/receipt.ts); none: no receipts. */
export function getCall(
  { shard, bucket }: JobLocation,
  id: string,
  receiptHours: readonly number[] = [],
): ScriptCall<GetReply> {
  const slot = receiptSlot(id)
  return {
    script: 'sdqGet',
    keys: {
      jobs: shard.jobs,
      bucket,
      inflight: shard.inflight,
      leases: shard.leases,
      errors: shard.errors,
      dead: shard.dead,
      receipts: receiptHours.map((h) => shard.receipts(h, slot)),
    },
    args: { id },
  }
}

export function decodeGet(reply: GetReply): DecodedGet {
  if (!reply) return null
  if (reply[0] === 'dispatched') return { state: 'dispatched', receipt: reply[1] }
  const [state, record, score, attempt, lastError] = reply
  return { state, record, score: Number(score), attempt: Number(attempt), lastError }
}
