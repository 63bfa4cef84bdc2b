// The tag index: one ZSET per shard (ShardKeys.tags), all scored 0, with "<tag>\n<job id>" for each tag of each job
// stored on that shard (any state: scheduled, being dispatched, waiting for a retry, dead). One key per shard rather
// than one per tag: the scripts that forget a job (ack, cancel, tag-cancel, a replace in enqueue) read its tags from
// its record and must find every key they touch in KEYS, so the key cannot depend on the tags. Entries are written and
// removed in the same script as the record (eagerly): a lazy index would keep entries of every tagged job ever sent
// until someone asked for its tag, a growth without bound in a queue whose tags are never listed. A job without tags
// has no entry and costs no command.
//
// A tag's jobs are a lexicographic range (ZRANGE BYLEX): tags never hold a byte below "\v" (src/direct/tag-rules.ts),
// so "[<tag>\n" .. "(<tag>\v" holds exactly that tag's entries, in id order, across every state.
import type { Keyspace, ShardKeys } from './keys'
import type { RedisClient } from './scripts'

/** The index entry of one tag of one job. */
export const tagMember = (tag: string, id: string) => `${tag}\n${id}`

/**
 * Up to `count` ids under `tag` in a tag index (the shard's jobs' `tags`, or its schedules' `scheduleTags`: both hold
 * "<tag>\n<id>"), in id order, after `afterId` (exclusive; null: from the first).
 */
export async function idsUnderTag(
  redis: RedisClient,
  index: string,
  tag: string,
  afterId: string | null,
  count: number,
): Promise<string[]> {
  const from = afterId === null ? `[${tag}\n` : `(${tagMember(tag, afterId)}`
  const members = await redis.zrangebylex(index, from, `(${tag}\v`, 'LIMIT', 0, count)
  return members.map((m) => m.slice(tag.length + 1))
}

/** Up to `count` job ids with `tag` on `shard`, in id order, after `afterId` (exclusive; null: from the first). */
export const tagIds = (redis: RedisClient, shard: ShardKeys, tag: string, afterId: string | null, count: number) =>
  idsUnderTag(redis, shard.tags, tag, afterId, count)

/** How many jobs the index holds under `tag` on `shard` (ZLEXCOUNT: no member crosses). */
export function tagCount(redis: RedisClient, shard: ShardKeys, tag: string): Promise<number> {
  return redis.zlexcount(shard.tags, `[${tag}\n`, `(${tag}\v`)
}

/**
 * The due buckets of `ids` for a script step over them (lua/tag-cancel.lua, lua/tag-promote.lua): each bucket once,
 * as the KEYS that follow the script's `fixedKeys` fixed ones, and per job its id, bucket number and that KEYS index.
 * A bucket is named by the id alone, so a step must be given its jobs' buckets in KEYS (Cluster-safe) before it runs.
 */
export function bucketsOf(
  keys: Keyspace,
  ids: readonly string[],
  fixedKeys: number,
): { buckets: string[]; jobs: (string | number)[] } {
  const buckets: string[] = []
  const at = new Map<string, number>()
  const jobs: (string | number)[] = []
  for (const id of ids) {
    const { bucket, bucketNo } = keys.locate(id)
    let n = at.get(bucket)
    if (n === undefined) {
      n = fixedKeys + buckets.push(bucket)
      at.set(bucket, n)
    }
    jobs.push(id, bucketNo, n)
  }
  return { buckets, jobs }
}
