// lua/tag-promote.lua's whole contract on the TypeScript side: one step's call (KEYS and ARGV by name, in the
// header's order) and its reply read into named fields (decodeTagPromote).
import type { Keyspace, ShardKeys } from '../keys'
import type { ScriptCall } from '../scripts'
import { bucketsOf } from '../tag-index'

/** lua/tag-promote.lua: [promoted, inFlight, ...next ids]. Read it with decodeTagPromote. */
export type TagPromoteReply = [number, number, ...string[]]

/** One step: promote `ids` (all on `shard`), and name up to `next` ids after the last of them. */
export function tagPromoteCall(
  keys: Keyspace,
  shard: ShardKeys,
  tag: string,
  ids: readonly string[],
  o: { beforeMs?: number; next: number },
): ScriptCall<TagPromoteReply> {
  const { buckets, jobs } = bucketsOf(keys, ids, 4)
  return {
    script: 'sdqTagPromote',
    keys: { jobs: shard.jobs, index: shard.index, dead: shard.dead, tags: shard.tags, buckets },
    args: { tag, beforeMs: o.beforeMs ?? '', next: o.next, wake: shard.wakeChannel, jobs },
  }
}

/** A step's reply, read: the jobs made due now, those whose dispatch is under way, and the ids the next step takes. */
export interface DecodedTagPromote {
  promoted: number
  inFlight: number
  next: string[]
}

export function decodeTagPromote(reply: TagPromoteReply): DecodedTagPromote {
  const [promoted, inFlight, ...next] = reply
  return { promoted: Number(promoted), inFlight: Number(inFlight), next }
}
