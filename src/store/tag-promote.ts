// Run now by tag (POST /jobs/run-due with `tag`, DelayQueue.runDue): every pending job with a tag (due before a time,
// or all) made due now, in bounded steps of lua/tag-promote.lua over the shard's tag index, each promoting up to
// `stepJobs` jobs as promote.lua promotes one and naming the next ones. A step is one script run, so Redis is never
// held longer than one step takes, whatever the tag's size (as a cancel by tag: src/store/tag-cancel.ts).
//
// Promoted jobs stay in the index (until SQS has them), so the walk keeps a cursor: the shard it is on and the last id
// it handled there. Shards are walked one after the other; a call stops after `maxRuns` steps and answers the cursor
// to go on from. A job a scanner holds (or whose dispatch retry is pending) is counted as in flight, not promoted.
import { ValidationError } from '../errors'
import type { Keyspace, ShardKeys } from './keys'
import type { ReplicationOptions } from './redis/replication'
import { writeScript } from './redis/write'
import { rideOut } from './redis/ride-out'
import type { ScriptedClient } from './scripts'
import { decodeTagPromote, tagPromoteCall } from './scripts/tag-promote'
import { tagIds } from './tag-index'

/** Jobs one step promotes at most (the same bound as a cancel by tag's step). */
export const TAG_PROMOTE_STEP_JOBS = 100

export interface TagPromoteOptions {
  /** Only jobs due before this (epoch ms, exclusive); absent: every job with the tag. */
  beforeMs?: number
  /** Where an earlier call stopped (its `cursor`); null or absent: from the start. */
  cursor?: string | null
  /** Script runs this call makes at most before it answers with a cursor (default: until done). */
  maxRuns?: number
  stepJobs?: number
}

export interface TagPromoteResult {
  promoted: number
  /** Jobs being handed to SQS (or waiting for a dispatch retry): their dispatch is under way, not moved. */
  inFlight: number
  /** Where to go on from; null when every shard was walked. */
  cursor: string | null
}

export async function promoteByTag(
  redis: ScriptedClient,
  keys: Keyspace,
  replication: ReplicationOptions,
  tag: string,
  options: TagPromoteOptions = {},
): Promise<TagPromoteResult> {
  const step = options.stepJobs ?? TAG_PROMOTE_STEP_JOBS
  let at: Position | null = options.cursor
    ? decodeCursor(options.cursor, keys.shards.length)
    : { shard: 0, after: null }
  const total = { promoted: 0, inFlight: 0 }
  const nextShard = (n: number): Position | null => (n + 1 < keys.shards.length ? { shard: n + 1, after: null } : null)
  let named: string[] | null = null // the next step's ids, when the last step named them
  let runs = 0
  while (at && runs < (options.maxRuns ?? Infinity)) {
    const shard: ShardKeys = keys.shards[at.shard]!
    const after = at.after
    const ids: string[] = named ?? (await rideOut(redis, () => tagIds(redis, shard, tag, after, step)))
    named = null
    if (ids.length === 0) {
      at = nextShard(at.shard)
      continue
    }
    runs++
    const call = tagPromoteCall(keys, shard, tag, ids, { beforeMs: options.beforeMs, next: step })
    const { reply, unconfirmed } = await writeScript(redis, replication, shard, call)
    const stepped = decodeTagPromote(reply)
    if (stepped.promoted > 0 && unconfirmed) throw unconfirmed
    total.promoted += stepped.promoted
    total.inFlight += stepped.inFlight
    const rest = stepped.next
    if (rest.length === 0) {
      at = nextShard(at.shard)
    } else {
      at = { shard: at.shard, after: ids[ids.length - 1]! }
      named = rest
    }
  }
  return { ...total, cursor: at ? `${at.shard}.${at.after ?? ''}` : null }
}

/** A position in the walk: the shard, and the last id handled there (null: none yet). */
interface Position {
  shard: number
  after: string | null
}

function decodeCursor(cursor: string, shards: number): Position {
  const m = /^(\d{1,4})\.(.{0,200})$/.exec(cursor)
  const shard = m ? Number(m[1]) : -1
  if (shard < 0 || shard >= shards) {
    throw new ValidationError([{ path: 'cursor', message: 'is not a cursor of an earlier run-due answer' }])
  }
  return { shard, after: m![2] === '' ? null : m![2]! }
}
