// Pages of pending jobs in due-time order, for all target queues or one: what the operator browses (GET /jobs,
// `sdq pending`, the dashboard). Read-only in the queue's data, and not atomic: a page is a snapshot of a moving queue.
//
// There is no index of a shard's jobs in due order, only small due buckets (chosen by job id) and an index of buckets
// scored by their earliest job (src/store/keys.ts). A page merges them: buckets are read in the order of a frontier (a
// lower bound of each one's next job: the index, or deep into a queue the walk's own, src/store/pending-walk.ts), each
// from the cursor on, until the next bucket's bound is after the page's last job. A page reads about as many buckets as
// it shows jobs, wherever it is in the queue (docs/benchmarks.md measures it at 1M jobs). Heads of records only
// (lua/record-heads.lua): payloads never cross.
//
// A page reads at most DEEP_PAGE_BUCKETS buckets of a shard. A walk's new frontier is a copy of the index, whose bounds
// deep in a queue are all behind the cursor: its first pages would read every bucket. So a page that reaches the bound
// shows only the jobs due before the first bucket it did not read (none of that bucket's can come earlier), perhaps
// none, with a cursor; the buckets it read are raised in the frontier, and the next page goes on from there. Where the
// bound falls among buckets whose bounds are one millisecond, the page reads all of those too: within a millisecond
// jobs are ordered by id, which no bound tells, so a cut there could place none of them and no page would go on.
import { PendingPageBusyError } from '../errors'
import { cursorKeyOf } from './cursor-key'
import { countDeepPage } from './deep-page-rate'
import type { Keyspace, ShardKeys } from './keys'
import {
  before,
  decodePendingCursor,
  type Due,
  encodePendingCursor,
  type PendingCursor,
  signedWith,
} from './pending-cursor'
import { tiedBuckets } from './frontier-ties'
import { advanceWalk, type BucketSeen, type Frontier, planWalk, type WalkLimits } from './pending-walk'
import { decodeRecord, RECORD_HEADER_LINES } from './record'
import { readRecordHeads } from './record-heads'
import type { ScriptedClient } from './scripts'
import { isoTime } from '../shared/iso-time'
import type { PendingJob, PendingPage } from '../contract/page'

export type { PendingJob, PendingPage }

/** Buckets of one shard a page reads at most (a copy's first pages: 4 pages to warm a 16,384-bucket frontier). */
export const DEEP_PAGE_BUCKETS = 4_096

/** What a page is asked for: `caller` is who asks (src/store/deep-page-rate.ts); null or left out for code. */
export interface PendingQuery {
  queue?: string
  limit?: number
  cursor?: string | null
  caller?: string | null
}

/** Most candidates one page examines for a queue filter (the other queues' jobs are read and skipped). */
const FILTER_SCAN_FACTOR = 10

/** One shard's part of a page: where it reads from, and what it learnt of each bucket it read (by bucket number). */
interface ShardRead {
  shard: ShardKeys
  frontier: Frontier
  seen: Map<string, BucketSeen>
  /** Buckets read so far by this page (at most its bound). */
  reads: number
  bound: number
  /** The bound left buckets unread: jobs from the first of them on wait for the next page. */
  cut?: boolean
}

/** The earliest rows of a shard, all due before `horizon`: the bound of the first bucket left unread (or Infinity). */
interface Earliest {
  rows: Due[]
  horizon: number
}

/**
 * The `want` earliest scheduled jobs of a shard after `after`, in due order. Two passes: each bucket that may hold one
 * (its bound in the frontier is not after the bound so far) gives its next job after the cursor; the page can only
 * hold jobs up to the `want`-th of those (B), and only from buckets whose next job is at most B, so only those are
 * read further, up to B. The first pass reads one job per bucket, the second at most `want` buckets.
 */
async function shardEarliest(
  redis: ScriptedClient,
  part: ShardRead,
  after: Due | null,
  want: number,
): Promise<Earliest> {
  const heads: { no: string; next: Due }[] = []
  const bound = () => (heads.length >= want ? heads[want - 1]!.next.dueMs : Infinity)
  let horizon = Infinity
  for (let offset = 0, batch = Math.max(want, 16); ; offset += batch, batch *= 2) {
    const index = await redis.zrange(part.frontier.key, String(offset), String(offset + batch - 1), 'WITHSCORES')
    const buckets: { no: string; minMs: number }[] = []
    for (let i = 0; i < index.length; i += 2) buckets.push({ no: index[i]!, minMs: Number(index[i + 1]) })
    let read = buckets.filter((b) => b.minMs <= bound())
    // Room for the second pass (up to `want` buckets) is kept.
    const room = Math.max(0, part.bound - want - part.reads)
    let ended = false
    if (read.length > room) {
      // Every bucket whose bound is the first one left out is read too: a job of that millisecond in any of them may
      // come before those read (the order is by id within a millisecond), so a cut there could show none of them.
      const tied = await tiedBuckets(redis, part.frontier.key, buckets[room]!.minMs, offset + room)
      read = [...read.slice(0, room), ...tied.buckets]
      horizon = tied.nextMs
      part.cut = horizon < Infinity
      ended = true
    }
    const nexts = await readBuckets(redis, part, read, after, 1, '+inf')
    nexts.forEach((rows, i) => rows[0] && heads.push({ no: read[i]!.no, next: rows[0] }))
    heads.sort((x, y) => before(x.next, y.next))
    const last = buckets.at(-1)
    if (ended || buckets.length < batch || !last || last.minMs > bound()) break
  }
  const limit = heads.filter((h) => h.next.dueMs < horizon)[want - 1]?.next
  const chosen = heads.filter((h) => h.next.dueMs < horizon && (!limit || before(h.next, limit) <= 0))
  const rows = await readBuckets(redis, part, chosen, after, want, limit ? String(limit.dueMs) : '+inf')
  return {
    rows: rows
      .flat()
      .filter((r) => r.dueMs < horizon)
      .sort(before)
      .slice(0, want),
    horizon,
  }
}

/** Up to `want` rows after the cursor and due by `untilMs` of each bucket, in one pipeline; noted in `part.seen`. */
async function readBuckets(
  redis: ScriptedClient,
  part: ShardRead,
  buckets: readonly { no: string }[],
  after: Due | null,
  want: number,
  untilMs: string,
): Promise<Due[][]> {
  if (buckets.length === 0) return []
  part.reads += buckets.length
  const pipe = redis.pipeline()
  const from = after ? String(after.dueMs) : '-inf'
  for (const b of buckets) {
    pipe.zrange(part.shard.bucket(b.no), from, untilMs, 'BYSCORE', 'LIMIT', 0, want, 'WITHSCORES')
  }
  const replies = (await pipe.exec()) ?? []
  const read = await Promise.all(
    replies.map(([err, rows], i) => {
      if (err) throw err
      return bucketAfter(redis, part.shard.bucket(buckets[i]!.no), rows as string[], after, want)
    }),
  )
  read.forEach((rows, i) => {
    const seen = part.seen.get(buckets[i]!.no) ?? { rows: [], empty: false }
    seen.rows.push(...rows)
    // Nothing after the cursor at all (an unbounded read): nothing after any later position either.
    if (rows.length === 0 && untilMs === '+inf') seen.empty = true
    part.seen.set(buckets[i]!.no, seen)
  })
  return read
}

/**
 * A bucket's first `want` rows after the cursor. Rows of the cursor's own millisecond up to its id come first in the
 * read (a sorted set orders equal scores by member): when they took some of it, read again with room for them.
 */
async function bucketAfter(redis: ScriptedClient, bucket: string, rows: string[], after: Due | null, want: number) {
  for (let limit = want; ; ) {
    const out: Due[] = []
    let skipped = 0
    for (let i = 0; i < rows.length; i += 2) {
      const row = { id: rows[i]!, dueMs: Number(rows[i + 1]) }
      if (after && before(row, after) <= 0) skipped++
      else out.push(row)
    }
    if (!after || skipped === 0 || out.length >= want || rows.length < 2 * limit) return out.slice(0, want)
    limit = want + skipped
    rows = await redis.zrange(bucket, String(after.dueMs), '+inf', 'BYSCORE', 'LIMIT', 0, limit, 'WITHSCORES')
  }
}

/** A page of pending jobs (scheduled: in their due buckets; jobs being sent or waiting for a dispatch retry are not). */
export async function readPendingPage(
  redis: ScriptedClient,
  keys: Keyspace,
  options: PendingQuery & { limit: number },
  /** How deep a page reads the index as it is, what walks may hold, how many buckets a page reads (tests lower them). */
  limits: WalkLimits = {},
): Promise<PendingPage> {
  const key = await cursorKeyOf(redis, keys)
  const cursor: PendingCursor | null = options.cursor ? await signedCursor(redis, keys, options.cursor, key) : null
  const countDeep = () => countDeepPage(redis, keys, options.caller ?? null, limits.deepPagesPerWindow)
  const plan = await planWalk(redis, keys.shards, cursor, { ...limits, countDeep })
  const bound = limits.pageBuckets ?? DEEP_PAGE_BUCKETS
  const parts = (frontiers: readonly Frontier[]): ShardRead[] =>
    keys.shards.map((shard, n) => ({ shard, frontier: frontiers[n]!, seen: new Map(), reads: 0, bound }))
  const read = parts(plan.frontiers)
  let { jobs, last, cut } = await collect(redis, read, cursor, options)
  // The bound reached before the page could move on, on a shard read without a walk's frontier (deep, and no room for
  // one): no later page would get further, so none is shown.
  const stuck = cut && (last === null || (cursor !== null && before(last, cursor) === 0))
  if (stuck && (last === null || read.some((p) => p.cut && p.frontier.held === undefined))) {
    throw new PendingPageBusyError()
  }
  const kept = await Promise.all(read.map((p) => advanceWalk(redis, p.shard, plan, p.frontier, p.seen, last)))
  if (!kept.every(Boolean)) {
    // A frontier changed while this page read it (another page of the walk moved it, or it was dropped or expired):
    // the page may have skipped jobs. Read it again from the shards' indexes, right for any cursor (as deep as the
    // bound lets it: perhaps none of its jobs, with the cursor to go on); the walk goes on from its cursor (its
    // frontier, where that still holds for it, or a new one). It costs what a deep page costs: it is counted as one.
    if (cursor) await countDeep()
    const again = await collect(redis, parts(keys.shards.map((s) => ({ key: s.index }))), cursor, options)
    jobs = again.jobs
    last = again.cut ? (again.last ?? cursor) : again.last
  }
  return { jobs, cursor: last ? encodePendingCursor({ ...last, walk: plan.walk }, key) : null }
}

/** The cursor, signed with the deployment's key (read again once when it does not match: the key was replaced). */
async function signedCursor(redis: ScriptedClient, keys: Keyspace, cursor: string, key: Buffer) {
  decodePendingCursor(cursor)
  return decodePendingCursor(cursor, signedWith(cursor, key) ? key : await cursorKeyOf(redis, keys, true))
}

/**
 * The page's jobs, and the last position it examined (null: the queue ends within this page); `cut` when a shard's
 * bound of bucket reads ended the page before its limit (its last position is where the next page goes on).
 */
async function collect(
  redis: ScriptedClient,
  parts: readonly ShardRead[],
  cursor: Due | null,
  options: { queue?: string; limit: number },
): Promise<{ jobs: PendingJob[]; last: Due | null; cut: boolean }> {
  let after: Due | null = cursor
  const jobs: PendingJob[] = []
  let examined = 0
  const budget = options.queue ? options.limit * FILTER_SCAN_FACTOR : options.limit
  while (jobs.length < options.limit && examined < budget) {
    const want = Math.min(options.limit, budget - examined)
    const perShard = await Promise.all(parts.map((p) => shardEarliest(redis, p, after, want)))
    // Only jobs before every shard's horizon are surely the earliest: a bucket left unread may hold one after them.
    const horizon = Math.min(...perShard.map((e) => e.horizon))
    const cut = horizon < Infinity
    const candidates = perShard
      .flatMap((e, n) => e.rows.filter((d) => d.dueMs < horizon).map((d) => ({ ...d, shard: parts[n]!.shard })))
      .sort(before)
      .slice(0, want)
    if (candidates.length === 0) return { jobs, last: cut ? after : null, cut }
    for (const { shard } of parts) {
      const mine = candidates.filter((c) => c.shard === shard)
      if (mine.length === 0) continue
      const heads = await readRecordHeads(
        redis,
        shard.jobs,
        mine.map((c) => c.id),
        { headerLines: RECORD_HEADER_LINES, previewBytes: 0 },
      )
      mine.forEach((c, i) => Object.assign(c, { head: heads[i] }))
    }
    for (const c of candidates as (Due & { head?: { head: string; payloadBytes: number } | null })[]) {
      examined++
      after = { dueMs: c.dueMs, id: c.id }
      // Gone since (sent, cancelled), or another queue's.
      if (!c.head) continue
      const job = decodeRecord(c.head.head)
      if (options.queue && job.queue !== options.queue) continue
      jobs.push({
        id: c.id,
        queue: job.queue,
        runAt: isoTime(c.dueMs),
        ...(job.groupId ? { groupId: job.groupId } : {}),
        createdAt: isoTime(job.createdAtMs),
        payloadBytes: c.head.payloadBytes,
      })
      if (jobs.length === options.limit) break
    }
    if (cut) return { jobs, last: after, cut }
    if (candidates.length < want) return { jobs, last: null, cut }
  }
  return { jobs, last: after, cut: false }
}
