// The buckets of a frontier that share one bound (src/store/pending-page.ts): where a page's bound of bucket reads
// falls among them, it reads them all, since within a millisecond jobs are ordered by id and no bound tells which of
// those buckets holds the next one.
import type { ScriptedClient } from './scripts'

/** Buckets read at most per call while reading the buckets of one bound (beyond a page's bound of reads). */
const TIED_BATCH = 4_096

/**
 * The frontier's buckets from rank `from` on (in the whole frontier) whose bound is `ms`, and the first bound after
 * it (Infinity: none).
 */
export async function tiedBuckets(redis: ScriptedClient, frontier: string, ms: number, from: number) {
  const buckets: { no: string; minMs: number }[] = []
  const earlier = await redis.zcount(frontier, '-inf', `(${ms}`)
  for (let offset = Math.max(0, from - earlier); ; offset += TIED_BATCH) {
    const index = await redis.zrange(frontier, String(ms), String(ms), 'BYSCORE', 'LIMIT', offset, TIED_BATCH)
    for (const no of index) buckets.push({ no, minMs: ms })
    if (index.length < TIED_BATCH) break
  }
  const next = await redis.zrange(frontier, `(${ms}`, '+inf', 'BYSCORE', 'LIMIT', 0, 1, 'WITHSCORES')
  return { buckets, nextMs: next.length ? Number(next[1]) : Infinity }
}
