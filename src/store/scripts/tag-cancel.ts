// lua/tag-cancel.lua's whole contract on the TypeScript side: one step's call (KEYS and ARGV by name, in the
// header's order) and its reply read into named fields (decodeTagCancel).
import type { Keyspace, ShardKeys } from '../keys'
import type { ScriptCall } from '../scripts'
import { bucketsOf } from '../tag-index'
import { jobStateKeys } from './job-side-keys'

/** lua/tag-cancel.lua: [cancelled, inFlight, recurring, ...next ids]. Read it with decodeTagCancel. */
export type TagCancelReply = [number, number, number, ...string[]]

/** One step: cancel `ids` (all on `shard`), and name up to `next` ids after the last of them. */
export function tagCancelCall(
  keys: Keyspace,
  shard: ShardKeys,
  tag: string,
  ids: readonly string[],
  next: number,
): ScriptCall<TagCancelReply> {
  const { buckets, jobs } = bucketsOf(keys, ids, 9)
  return {
    script: 'sdqTagCancel',
    keys: {
      ...jobStateKeys(shard),
      tags: shard.tags,
      schedules: shard.schedules,
      buckets,
    },
    args: { tag, next, jobs },
  }
}

/** A step's reply, read: what it did (as TagCancelProgress counts it), and the ids the next step takes. */
export interface DecodedTagCancel {
  cancelled: number
  inFlight: number
  recurring: number
  next: string[]
}

export function decodeTagCancel(reply: TagCancelReply): DecodedTagCancel {
  const [cancelled, inFlight, recurring, ...next] = reply
  return { cancelled: Number(cancelled), inFlight: Number(inFlight), recurring: Number(recurring), next }
}
