// Pages of pending jobs in due-time order, for all target queues or one: what the operator browses (GET /jobs,
// `sdq pending`, the dashboard). Read-only in the queue's data, and not atomic: a page is a snapshot of a moving queue.
//
// There is no index of a shard's jobs in due order, only small due buckets (chosen by job id) and an index of buckets
// scored by their earliest job (src/store/keys.ts). A page merges them: buckets are read in the order of a frontier (a
// lower bound of each one's next job: the index, or deep into a queue the walk's own, src/store/pending-walk.ts), each
// from the cursor on, until the next bucket's bound is after the page's last job. A page reads about as many buckets as
// it shows jobs, wherever it is in the queue (docs/benchmarks.md measures it at 1M jobs). Heads of records only
// (lua/record-heads.lua): payloads never cross.
import type { Keyspace, ShardKeys } from './keys'
import { before, decodePendingCursor, type Due, encodePendingCursor, type PendingCursor } from './pending-cursor'
import { advanceWalk, type BucketSeen, type Frontier, planWalk, type WalkLimits } from './pending-walk'
import { decodeRecord, RECORD_HEADER_LINES } from './record'
import { readRecordHeads } from './record-heads'
import type { ScriptedClient } from './scripts'
import { isoTime } from '../iso-time'

export interface PendingJob {
  id: string
  queue: string
  runAt: string
  groupId?: string
  createdAt: string
  payloadBytes: number
}

export interface PendingPage {
  jobs: PendingJob[]
  /** Pass it back for the next page; null at the end. A page for one queue may be short and still have a cursor. */
  cursor: string | null
}

/** Most candidates one page examines for a queue filter (the other queues' jobs are read and skipped). */
const FILTER_SCAN_FACTOR = 10

/** One shard's part of a page: where it reads from, and what it learnt of each bucket it read (by bucket number). */
interface ShardRead {
  shard: ShardKeys
  frontier: Frontier
  seen: Map<string, BucketSeen>
}

/**
 * The `want` earliest scheduled jobs of a shard after `after`, in due order. Two passes: each bucket that may hold one
 * (its bound in the frontier is not after the bound so far) gives its next job after the cursor; the page can only
 * hold jobs up to the `want`-th of those (B), and only from buckets whose next job is at most B, so only those are
 * read further, up to B. The first pass reads one job per bucket, the second at most `want` buckets.
 */
async function shardEarliest(redis: ScriptedClient, part: ShardRead, after: Due | null, want: number) {
  const heads: { no: string; next: Due }[] = []
  const bound = () => (heads.length >= want ? heads[want - 1]!.next.dueMs : Infinity)
  for (let offset = 0, batch = Math.max(want, 16); ; offset += batch, batch *= 2) {
    const index = await redis.zrange(part.frontier.key, String(offset), String(offset + batch - 1), 'WITHSCORES')
    const buckets: { no: string; minMs: number }[] = []
    for (let i = 0; i < index.length; i += 2) buckets.push({ no: index[i]!, minMs: Number(index[i + 1]) })
    const read = buckets.filter((b) => b.minMs <= bound())
    const nexts = await readBuckets(redis, part, read, after, 1, '+inf')
    nexts.forEach((rows, i) => rows[0] && heads.push({ no: read[i]!.no, next: rows[0] }))
    heads.sort((x, y) => before(x.next, y.next))
    const last = buckets.at(-1)
    if (buckets.length < batch || !last || last.minMs > bound()) break
  }
  const limit = heads[want - 1]?.next
  const chosen = heads.filter((h) => !limit || before(h.next, limit) <= 0)
  const rows = await readBuckets(redis, part, chosen, after, want, limit ? String(limit.dueMs) : '+inf')
  return rows.flat().sort(before).slice(0, want)
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
  options: { queue?: string; limit: number; cursor?: string | null },
  /** How deep a page reads the index as it is, what walks may hold (tests lower them). */
  limits: WalkLimits = {},
): Promise<PendingPage> {
  const cursor: PendingCursor | null = options.cursor ? decodePendingCursor(options.cursor) : null
  const plan = await planWalk(redis, keys.shards, cursor, limits)
  const parts = (frontiers: readonly Frontier[]): ShardRead[] =>
    keys.shards.map((shard, n) => ({ shard, frontier: frontiers[n]!, seen: new Map() }))
  const read = parts(plan.frontiers)
  let { jobs, last } = await collect(redis, read, cursor, options)
  const kept = await Promise.all(read.map((p) => advanceWalk(redis, p.shard, plan, p.frontier, p.seen, last)))
  if (!kept.every(Boolean)) {
    // A frontier changed while this page read it (another page of the walk moved it, or it was dropped or expired):
    // the page may have skipped jobs. Read it again from the shards' indexes, right for any cursor (slower deep in a
    // queue); the walk goes on from its cursor (its frontier, where that still holds for it, or a new one).
    ;({ jobs, last } = await collect(redis, parts(keys.shards.map((s) => ({ key: s.index }))), cursor, options))
  }
  return { jobs, cursor: last ? encodePendingCursor({ ...last, walk: plan.walk }) : null }
}

/** The page's jobs, and the last position it examined (null: the queue ends within this page). */
async function collect(
  redis: ScriptedClient,
  parts: readonly ShardRead[],
  cursor: Due | null,
  options: { queue?: string; limit: number },
): Promise<{ jobs: PendingJob[]; last: Due | null }> {
  let after: Due | null = cursor
  const jobs: PendingJob[] = []
  let examined = 0
  const budget = options.queue ? options.limit * FILTER_SCAN_FACTOR : options.limit
  while (jobs.length < options.limit && examined < budget) {
    const want = Math.min(options.limit, budget - examined)
    const perShard = await Promise.all(parts.map((p) => shardEarliest(redis, p, after, want)))
    const candidates = perShard
      .flatMap((dues, n) => dues.map((d) => ({ ...d, shard: parts[n]!.shard })))
      .sort(before)
      .slice(0, want)
    if (candidates.length === 0) return { jobs, last: null }
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
    if (candidates.length < want) return { jobs, last: null }
  }
  return { jobs, last: after }
}
