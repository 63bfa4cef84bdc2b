// Where a page of pending jobs starts reading each shard: its frontier, a sorted set of due buckets scored by a lower
// bound of each one's next job after the cursor. A page reads the buckets in that order until the next bound is past
// the page's last job (src/store/pending-page.ts), so its cost is the number of buckets it reads.
//
// The shard's index (each bucket's earliest job) is such a frontier for any cursor, and costs nothing to keep, but
// deep into a queue it is a poor one: the buckets are chosen by job id, so nearly every bucket holds a job before the
// cursor and a page would read them all (16,384 per shard as shipped, a few hundred ms). So a walk that goes past
// SHALLOW_BUCKETS buckets keeps its own frontier: a copy of the index (one COPY), whose bounds each page raises for
// the buckets it read to their next job after the page. A page then reads about as many buckets as it shows jobs,
// wherever it is. The frontier and its position expire WALK_TTL_MS after the walk's last page (a copy of the index:
// ~93 bytes per due bucket, 1.5 MB per shard as shipped); a walk's last page deletes them, and at most MAX_WALKS
// walks keep one per shard (the oldest is dropped: forged cursors cannot fill Redis with frontiers).
//
// Why no job that stays put is skipped or shown twice: a bound is taken from the bucket's jobs when it is written,
// and a bucket is always read from the cursor on, not from its bound, so every job that was there then is at or after
// its bound. A job enqueued during the walk into a bucket whose bound is already past it may be missed by this walk.
// A cursor older than its walk's position (a previous page again) or whose walk expired starts the frontier afresh:
// that page costs what a page without a frontier costs at that depth.
import type { ShardKeys } from './keys'
import { before, type Due, type PendingCursor } from './pending-cursor'
import type { ScriptedClient } from './scripts'

/** How long a walk's frontier is kept after its last page. */
export const WALK_TTL_MS = 600_000
/** A cursor with at most this many of the shard's buckets starting before it reads the index as it is. */
export const SHALLOW_BUCKETS = 256
/** Walks that keep a frontier at once, per shard (each ~93 bytes per due bucket): the oldest beyond are dropped. */
export const MAX_WALKS = 16

export interface Frontier {
  /** The sorted set to read buckets from: the shard's index, or the walk's frontier. */
  key: string
  /** The walk's frontier and position keys (and its name in the shard's list), when this page reads and raises a
   * frontier of its own. */
  walk?: { key: string; at: string; name: string; list: string; created?: boolean }
}

/** What a page learnt about a bucket: rows read from it, and whether it has nothing after the cursor. */
export interface BucketSeen {
  rows: Due[]
  empty: boolean
}

const positionOf = (text: string): Due | null => {
  const m = /^(\d+):(.*)$/s.exec(text)
  return m ? { dueMs: Number(m[1]), id: m[2]! } : null
}

/** The frontier a page of `walk` starting after `cursor` (null: the first page) reads on this shard. */
export async function frontierOf(
  redis: ScriptedClient,
  shard: ShardKeys,
  walk: string,
  cursor: PendingCursor | null,
  shallowBuckets = SHALLOW_BUCKETS,
): Promise<Frontier> {
  if (!cursor) return { key: shard.index }
  const own = { key: shard.pendingWalk(walk), at: shard.pendingWalkAt(walk), name: walk, list: shard.pendingWalks }
  const replies = (await redis.pipeline().get(own.at).zcount(shard.index, '-inf', cursor.dueMs).exec()) ?? []
  for (const [err] of replies) if (err) throw err
  const at = positionOf(String(replies[0]?.[1] ?? ''))
  // Bounds for a position are bounds for any later one too.
  if (at && before(at, cursor) <= 0) return { key: own.key, walk: own }
  if (Number(replies[1]?.[1]) <= shallowBuckets) return { key: shard.index }
  const [copied] =
    (await redis
      .pipeline()
      .copy(shard.index, own.key, 'REPLACE')
      .pexpire(own.key, WALK_TTL_MS)
      .zadd(shard.pendingWalks, Date.now(), walk)
      .exec()) ?? []
  // Redis full (COPY writes): this page reads the index as it is, slower.
  if (!copied || copied[0]) return { key: shard.index }
  await dropOldWalks(redis, shard)
  return { key: own.key, walk: { ...own, created: true } }
}

/**
 * Keeps the frontiers of the MAX_WALKS walks of the shard used last: a walk whose frontier is dropped starts again
 * (its position goes with it, and a page under way does not write it back).
 */
async function dropOldWalks(redis: ScriptedClient, shard: ShardKeys): Promise<void> {
  const old = await redis.zrange(shard.pendingWalks, '0', String(-(MAX_WALKS + 1)))
  const pipe = redis.pipeline().zremrangebyscore(shard.pendingWalks, '-inf', Date.now() - WALK_TTL_MS - 60_000)
  for (const walk of old) pipe.del(shard.pendingWalk(walk), shard.pendingWalkAt(walk)).zrem(shard.pendingWalks, walk)
  pipe.pexpire(shard.pendingWalks, WALK_TTL_MS + 60_000)
  for (const [err] of (await pipe.exec()) ?? []) if (err) throw err
}

/**
 * After a page: raise each bucket it read to its next job after `to` (the page's last position), or to `to` itself
 * when the page did not read that far; forget a bucket with nothing after it. `to` null: the walk ended. Resolves to
 * false when the walk's frontier was dropped meanwhile (the page may have missed this shard's jobs: read it again).
 */
export async function advanceWalk(
  redis: ScriptedClient,
  frontier: Frontier,
  seen: ReadonlyMap<string, BucketSeen>,
  to: Due | null,
): Promise<boolean> {
  const walk = frontier.walk
  if (!walk) return true
  const pipe = redis.pipeline()
  if (!to) pipe.del(walk.key, walk.at).zrem(walk.list, walk.name)
  else {
    for (const [bucketNo, s] of seen) {
      const next = s.rows.filter((r) => before(r, to) > 0).sort(before)[0]
      if (next) pipe.zadd(walk.key, next.dueMs, bucketNo)
      else if (s.empty) pipe.zrem(walk.key, bucketNo)
      else pipe.zadd(walk.key, to.dueMs, bucketNo)
    }
    // The position expires first: a frontier is never read without its position. Only a page that made the frontier
    // creates the position; another only moves it (XX): once dropped (dropOldWalks), the walk starts again.
    pipe.pexpire(walk.key, WALK_TTL_MS + 60_000)
    if (walk.created) pipe.set(walk.at, `${to.dueMs}:${to.id}`, 'PX', WALK_TTL_MS)
    else pipe.set(walk.at, `${to.dueMs}:${to.id}`, 'PX', WALK_TTL_MS, 'XX')
    pipe.zadd(walk.list, 'XX', Date.now(), walk.name)
  }
  const replies = (await pipe.exec()) ?? []
  for (const [err] of replies) if (err) throw err
  return !to || walk.created === true || replies.at(-2)?.[1] === 'OK'
}
