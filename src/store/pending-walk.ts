// Where a page of pending jobs starts reading each shard: its frontier, a sorted set of due buckets scored by a lower
// bound of each one's next job after the cursor. A page reads the buckets in that order until the next bound is past
// the page's last job (src/store/pending-page.ts), so its cost is the number of buckets it reads.
//
// The shard's index (each bucket's earliest job) is such a frontier for any cursor, and costs nothing to keep, but
// deep into a queue it is a poor one: the buckets are chosen by job id, so nearly every bucket holds a job before the
// cursor and a page would read them all (16,384 per shard as shipped, a few hundred ms). So a walk that goes past
// SHALLOW_BUCKETS buckets keeps its own frontier: a copy of the index (lua/walk-start.lua), whose bounds each page
// raises for the buckets it read to their next job after the page (lua/walk-advance.lua). A page then reads about as
// many buckets as it shows jobs, wherever it is. The frontier and its position expire WALK_TTL_MS after the walk's
// last page (a copy of the index: ~93 bytes per due bucket, 1.5 MB per shard as shipped); a walk's last page deletes
// them; at most MAX_WALKS walks keep one per shard (the least recently used are dropped: forged cursors cannot fill
// Redis with frontiers). Their memory is reserved in the script that copies (lua/walk-start.lua), never by a check
// before it: the shard's frontiers together hold at most WALK_BUDGET_BYTES, and no copy takes the node past
// WALK_MEMORY_PERCENT of maxmemory, however many pages start walks at once. A page that finds no room reads the index.
//
// Why no job that stays put is skipped or shown twice: a bound is taken from the bucket's jobs when it is written,
// and a bucket is always read from the cursor on, not from its bound, so every job that was there then is at or after
// its bound. A job enqueued during the walk into a bucket whose bound is already past it may be missed by this walk.
// A frontier holds for its position and any later one, never an earlier one, and it must not change while a page reads
// it: so a page's writes are a compare-and-set on the position it started from (stamped with the page that wrote it),
// and a page whose frontier changed under it (another page of the walk moved it, it was dropped, it expired) writes
// nothing and is read again from the shard's index (pending-page.ts). A cursor before its walk's position (a previous
// page again) starts a walk of its own under a new name: a live frontier is never overwritten.
import { randomBytes } from 'node:crypto'
import type { ShardKeys } from './keys'
import { walkAdvanceCall, WalkAdvanceStatus } from './scripts/walk-advance'
import { walkStartCall, WalkStartStatus } from './scripts/walk-start'
import { before, type Due, newWalk, type PendingCursor } from './pending-cursor'
import { runScript, type ScriptedClient } from './scripts'

/** How long a walk's frontier is kept after its last page. */
export const WALK_TTL_MS = 600_000
/** A cursor with at most this many of the shard's buckets starting before it reads the index as it is. */
export const SHALLOW_BUCKETS = 256
/** Walks that keep a frontier at once, per shard (each ~93 bytes per due bucket): the oldest beyond are dropped. */
export const MAX_WALKS = 16
/**
 * No frontier is made while it would take its node past this share of its maxmemory (used_memory, plus the copy, as
 * the script that copies reads it): near full, a page reads the index as it is (slower deep in a queue) rather than
 * leave Redis full of frontiers for ten minutes, when enqueues would be refused (507). The memory warning's default.
 */
export const WALK_MEMORY_PERCENT = 80
/**
 * What the frontiers of one shard's walks hold together at most (8 MiB: five walks of a 16,384-bucket shard), so all
 * walks of a deployment hold at most SHARDS times this. Reserved by the copy itself, so concurrent pages cannot pass it.
 * One walk is always let in (within WALK_MEMORY_PERCENT): past ~90,000 buckets a shard has one deep walk at a time.
 */
export const WALK_BUDGET_BYTES = 8 * 1024 * 1024
/** A walk unused this long gives its frontier up to a new walk when the budget has no room for both. */
export const WALK_IDLE_MS = 60_000
/** What a frontier costs per due bucket (MEMORY USAGE of a copy of a 16,384-bucket index: docs/benchmarks.md). */
export const FRONTIER_BYTES_PER_BUCKET = 93

/** How deep a walk reads the index as it is, and what its frontiers may hold (tests lower them). */
export interface WalkLimits {
  /** A cursor with at most this many of the shard's buckets starting before it reads the index as it is. */
  shallowBuckets?: number
  /** What the shard's frontiers hold together at most. */
  budgetBytes?: number
  /** Called once before a page starts a walk's frontier: a deep page, counted (src/store/deep-page-rate.ts). */
  countDeep?: () => Promise<void>
  /** Buckets of one shard a page reads at most (DEEP_PAGE_BUCKETS). */
  pageBuckets?: number
  /** Deep pages a caller may have per window (DEEP_PAGES_PER_WINDOW). */
  deepPagesPerWindow?: number
}

export interface Frontier {
  /** The sorted set to read buckets from: the shard's index, or the walk's frontier. */
  key: string
  /** The position this page started from on the walk's frontier, as read (what its writes compare with). */
  held?: string
}

/** What a page learnt about a bucket: rows read from it, and whether it has nothing after the cursor. */
export interface BucketSeen {
  rows: Due[]
  empty: boolean
}

/** The frontiers one page reads (one per shard, in the keyspace's order), and the walk its writes belong to. */
export interface WalkPlan {
  walk: string
  /** Stamps the positions this page writes: a position another page wrote never compares equal to one it read. */
  token: string
  frontiers: Frontier[]
}

/** A position as a walk's `at` key holds it: "<page token>|<due ms>:<id>". */
const positionText = (token: string, at: Due) => `${token}|${at.dueMs}:${at.id}`

const positionOf = (text: string): Due | null => {
  const m = /^(?:[^|]*\|)?(\d+):(.*)$/s.exec(text)
  return m ? { dueMs: Number(m[1]), id: m[2]! } : null
}

/** The frontier of each shard for a page after `cursor` (null: the first page, which reads the indexes). */
export async function planWalk(
  redis: ScriptedClient,
  shards: readonly ShardKeys[],
  cursor: PendingCursor | null,
  limits: WalkLimits = {},
): Promise<WalkPlan> {
  const { shallowBuckets = SHALLOW_BUCKETS, budgetBytes = WALK_BUDGET_BYTES } = limits
  const token = randomBytes(6).toString('base64url')
  if (!cursor) return { walk: newWalk(), token, frontiers: shards.map((s) => ({ key: s.index })) }
  let walk = cursor.walk ?? newWalk()
  const looks = await Promise.all(shards.map((shard) => look(redis, shard, walk, cursor)))
  // An earlier page again: that walk's frontier holds for its own position, not for this one. A walk of its own.
  const older = looks.some((l) => l.at && before(l.at, cursor) > 0)
  if (older) walk = newWalk()
  // Bounds for a position are bounds for any later one too.
  const keeps = looks.map((l) => !older && l.held !== null && l.at !== null)
  if (looks.some((l, n) => !keeps[n] && l.behind > shallowBuckets)) await limits.countDeep?.()
  const frontiers = await Promise.all(
    shards.map(async (shard, n): Promise<Frontier> => {
      const { held, behind } = looks[n]!
      if (keeps[n] && held) return { key: shard.pendingWalk(walk), held }
      if (behind <= shallowBuckets) return { key: shard.index }
      const position = positionText(token, cursor)
      return (await startWalk(redis, shard, walk, position, budgetBytes))
        ? { key: shard.pendingWalk(walk), held: position }
        : { key: shard.index }
    }),
  )
  return { walk, token, frontiers }
}

/** A shard's side of a walk: the position it holds (as read, and parsed), and how deep the cursor is. */
async function look(redis: ScriptedClient, shard: ShardKeys, walk: string, cursor: Due) {
  const replies =
    (await redis.pipeline().get(shard.pendingWalkAt(walk)).zcount(shard.index, '-inf', cursor.dueMs).exec()) ?? []
  for (const [err] of replies) if (err) throw err
  const held = replies[0]?.[1] == null ? null : String(replies[0][1])
  return {
    held,
    at: held === null ? null : positionOf(held),
    behind: Number(replies[1]?.[1]),
  }
}

/**
 * Makes the walk's frontier on the shard, dropping the least recently used walks beyond MAX_WALKS; false if not (no
 * room, or another page of the walk made it meanwhile).
 */
async function startWalk(
  redis: ScriptedClient,
  shard: ShardKeys,
  walk: string,
  position: string,
  budgetBytes: number,
): Promise<boolean> {
  // The least recently used first: the script drops as many as the cap and the budget need.
  const candidates = await redis.zrange(shard.pendingWalks, '0', String(2 * MAX_WALKS - 1))
  const call = walkStartCall(shard, {
    walk,
    position,
    ttlMs: WALK_TTL_MS,
    maxWalks: MAX_WALKS,
    bytesPerBucket: FRONTIER_BYTES_PER_BUCKET,
    budgetBytes,
    memoryPercent: WALK_MEMORY_PERCENT,
    idleMs: WALK_IDLE_MS,
    candidates,
  })
  try {
    return (await runScript(redis, call)) === WalkStartStatus.Made
  } catch (e) {
    // Redis full: this page reads the index as it is, slower.
    if (e instanceof Error && e.name === 'ReplyError' && e.message.startsWith('OOM')) return false
    throw e
  }
}

/** Buckets one walk-advance call updates at most: its arguments stay near 2,000 (a call of 32,700 took 26.5 ms). */
export const ADVANCE_CHUNK = 1_000

type Update = { bucketNo: string; bound: number } | { bucketNo: string; forget: true }

/**
 * After a page: raise each bucket it read to its next job after `to` (the page's last position), or to `to` itself
 * when the page did not read that far; forget a bucket with nothing after it. `to` null: the walk ended. Resolves to
 * false when the frontier changed while the page read it (nothing more is written then: read the page again without
 * it). More than ADVANCE_CHUNK buckets go in several calls: the first ones keep the position the page started from and
 * raise buckets only to their next job after it (bounds for that position hold for any later one, whichever page
 * moves it next), the last one moves the position and raises its buckets to what holds after `to`.
 */
export async function advanceWalk(
  redis: ScriptedClient,
  shard: ShardKeys,
  plan: WalkPlan,
  frontier: Frontier,
  seen: ReadonlyMap<string, BucketSeen>,
  to: Due | null,
): Promise<boolean> {
  if (frontier.held === undefined) return true
  const afterTo: Update[] = []
  const afterHeld: Update[] = []
  if (to) {
    for (const [bucketNo, s] of seen) {
      const rows = [...s.rows].sort(before)
      const next = rows.find((r) => before(r, to) > 0)
      if (next) afterTo.push({ bucketNo, bound: next.dueMs })
      else if (s.empty) afterTo.push({ bucketNo, forget: true })
      else afterTo.push({ bucketNo, bound: to.dueMs })
      // Every row a page reads is after the cursor: the first is the bucket's next job after the held position.
      if (rows[0]) afterHeld.push({ bucketNo, bound: rows[0].dueMs })
      else if (s.empty) afterHeld.push({ bucketNo, forget: true })
    }
  }
  const last = afterTo.slice(0, ADVANCE_CHUNK)
  const lastBuckets = new Set(last.map((u) => u.bucketNo))
  const early = afterHeld.filter((u) => !lastBuckets.has(u.bucketNo))
  for (let i = 0; i < early.length; i += ADVANCE_CHUNK) {
    const chunk = early.slice(i, i + ADVANCE_CHUNK)
    if (!(await advance(redis, shard, plan.walk, frontier.held, frontier.held, chunk))) return false
  }
  return advance(redis, shard, plan.walk, frontier.held, to ? positionText(plan.token, to) : '', last)
}

/** One lua/walk-advance.lua call: 1 when written, 0 when the walk no longer holds `held`. */
async function advance(
  redis: ScriptedClient,
  shard: ShardKeys,
  walk: string,
  held: string,
  next: string,
  updates: readonly Update[],
): Promise<boolean> {
  const call = walkAdvanceCall(shard, {
    walk,
    held,
    next,
    ttlMs: WALK_TTL_MS,
    raise: updates.flatMap((u) => ('bound' in u ? [{ bucketNo: u.bucketNo, bound: u.bound }] : [])),
    forget: updates.flatMap((u) => ('forget' in u ? [u.bucketNo] : [])),
  })
  return (await runScript(redis, call)) === WalkAdvanceStatus.Written
}
