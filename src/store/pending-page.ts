// Pages of pending jobs in due-time order, for all target queues or one: what the operator browses (GET /jobs,
// `sdq pending`, the dashboard). Read-only, and not atomic: a page is a snapshot of a moving queue.
//
// There is no index of a shard's jobs in due order, only small due buckets and an index of buckets scored by their
// earliest job (src/store/keys.ts). A page merges them: buckets are read in the order of their earliest job, each from
// the cursor on, until the next bucket starts later than the page's last job. The first pages read about as many
// buckets as they show jobs; a page deep into the queue reads every bucket whose earliest job is before the page's end
// (docs/benchmarks.md measures both at 1M jobs). Heads of records only (lua/record-heads.lua): payloads never cross.
import { ValidationError } from '../errors'
import type { Keyspace, ShardKeys } from './keys'
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

interface Due {
  id: string
  dueMs: number
}

/** Most candidates one page examines for a queue filter (the other queues' jobs are read and skipped). */
const FILTER_SCAN_FACTOR = 10

const before = (a: Due, b: Due) => a.dueMs - b.dueMs || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)

export function encodePendingCursor(at: Due): string {
  return Buffer.from(`${at.dueMs}:${at.id}`).toString('base64url')
}

export function decodePendingCursor(cursor: string): Due {
  const text = /^[A-Za-z0-9_-]{1,400}$/.test(cursor) ? Buffer.from(cursor, 'base64url').toString() : ''
  const m = /^(\d{1,16}):(.+)$/s.exec(text)
  if (!m) throw new ValidationError([{ path: 'cursor', message: 'must be a cursor from a previous page' }])
  return { dueMs: Number(m[1]), id: m[2]! }
}

/**
 * The `want` earliest scheduled jobs of a shard after `after`, in due order. Two passes: each bucket that may hold one
 * (its earliest job, the index's score, is not after the bound so far) gives its next job after the cursor; the page
 * can only hold jobs up to the `want`-th of those (B), and only from buckets whose next job is at most B, so only
 * those are read further, up to B. The first pass reads one job per bucket, the second at most `want` buckets.
 */
async function shardEarliest(redis: ScriptedClient, shard: ShardKeys, after: Due | null, want: number) {
  const heads: { no: string; next: Due }[] = []
  const bound = () => (heads.length >= want ? heads[want - 1]!.next.dueMs : Infinity)
  for (let offset = 0, batch = Math.max(want, 16); ; offset += batch, batch *= 2) {
    const index = await redis.zrange(shard.index, String(offset), String(offset + batch - 1), 'WITHSCORES')
    const buckets: { no: string; minMs: number }[] = []
    for (let i = 0; i < index.length; i += 2) buckets.push({ no: index[i]!, minMs: Number(index[i + 1]) })
    const read = buckets.filter((b) => b.minMs <= bound())
    const nexts = await readBuckets(redis, shard, read, after, 1, '+inf')
    nexts.forEach((rows, i) => rows[0] && heads.push({ no: read[i]!.no, next: rows[0] }))
    heads.sort((x, y) => before(x.next, y.next))
    const last = buckets.at(-1)
    if (buckets.length < batch || !last || last.minMs > bound()) break
  }
  const limit = heads[want - 1]?.next
  const chosen = heads.filter((h) => !limit || before(h.next, limit) <= 0)
  const rows = await readBuckets(redis, shard, chosen, after, want, limit ? String(limit.dueMs) : '+inf')
  return rows.flat().sort(before).slice(0, want)
}

/** Up to `want` rows after the cursor and due by `untilMs` of each bucket, in one pipeline. */
async function readBuckets(
  redis: ScriptedClient,
  shard: ShardKeys,
  buckets: readonly { no: string }[],
  after: Due | null,
  want: number,
  untilMs: string,
): Promise<Due[][]> {
  if (buckets.length === 0) return []
  const pipe = redis.pipeline()
  const from = after ? String(after.dueMs) : '-inf'
  for (const b of buckets) pipe.zrange(shard.bucket(b.no), from, untilMs, 'BYSCORE', 'LIMIT', 0, want, 'WITHSCORES')
  const replies = (await pipe.exec()) ?? []
  return Promise.all(
    replies.map(([err, rows], i) => {
      if (err) throw err
      return bucketAfter(redis, shard.bucket(buckets[i]!.no), rows as string[], after, want)
    }),
  )
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
): Promise<PendingPage> {
  let after = options.cursor ? decodePendingCursor(options.cursor) : null
  const jobs: PendingJob[] = []
  let examined = 0
  const budget = options.queue ? options.limit * FILTER_SCAN_FACTOR : options.limit
  while (jobs.length < options.limit && examined < budget) {
    const want = Math.min(options.limit, budget - examined)
    const perShard = await Promise.all(keys.shards.map((s) => shardEarliest(redis, s, after, want)))
    const candidates = perShard
      .flatMap((dues, n) => dues.map((d) => ({ ...d, shard: keys.shards[n]! })))
      .sort(before)
      .slice(0, want)
    if (candidates.length === 0) return { jobs, cursor: null }
    for (const shard of keys.shards) {
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
      after = c
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
    if (candidates.length < want) return { jobs, cursor: null }
  }
  return { jobs, cursor: after ? encodePendingCursor(after) : null }
}
