// lua/promote.lua's whole contract on the TypeScript side: the call (KEYS and ARGV by name, in the header's order),
// its success codes (PromoteStatus) and the reply read into named fields (decodePromote).
import type { ScriptErrorCode } from '../script-errors'
import type { JobLocation } from '../keys'
import type { ScriptCall } from '../scripts'
import { jobSideKeys } from './job-side-keys'

/** When promote moves a job: now (unless due already), a delay after Redis's clock, or a time. */
export type MoveTo = { now: true } | { delayMs: number } | { atMs: number }

/** lua/promote.lua's success codes, the first element of its array reply (a number reply is a ScriptErrorCode). */
export enum PromoteStatus {
  /** { 1, dueMs, previousDueMs }: the job was moved. */
  Moved = 1,
  /** { 2, dueMs }: "now" asked of a job due already, unchanged. */
  DueAlready = 2,
}

/** lua/promote.lua: { PromoteStatus, dueMs, previousDueMs? }, or a ScriptErrorCode. Read it with decodePromote. */
export type PromoteReply = (number | string)[] | number

/** A promote reply, read: the job's due time now and before (the same when it was due already), or a refusal. */
export type DecodedPromote =
  | { status: PromoteStatus; dueMs: number; previousDueMs: number }
  | { status: 'refused'; code: ScriptErrorCode }

export function promoteCall(
  { shard, bucket, bucketNo }: JobLocation,
  id: string,
  to: MoveTo = { now: true },
): ScriptCall<PromoteReply> {
  const [kind, when] = 'delayMs' in to ? ['delay', to.delayMs] : 'atMs' in to ? ['at', to.atMs] : ['now', '']
  return {
    script: 'sdqPromote',
    keys: jobSideKeys({ shard, bucket }),
    args: { id, bucketNo, wake: shard.wakeChannel, kind, when },
  }
}

export function decodePromote(reply: PromoteReply): DecodedPromote {
  if (typeof reply === 'number' || !Array.isArray(reply)) return { status: 'refused', code: Number(reply) }
  const [code, now, before] = reply.map(Number) as [number, number, number?]
  return { status: code as PromoteStatus, dueMs: now, previousDueMs: before ?? now }
}
