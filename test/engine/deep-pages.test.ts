// What a page of GET /jobs may cost Redis, whoever asks: cursors are signed (a forged or altered one is a 400 naming
// `cursor`, before anything is read), a page reads at most a bounded number of buckets per shard and a walk's script
// takes a bounded number of arguments, and each caller may start only so many deep pages a minute (429).
import { describe, expect, it } from 'vitest'
import { DeepPagesLimitedError, ValidationError } from '../../src/errors'
import { readPendingPage } from '../../src/store/pending-page'
import { testStore } from '../support/engine'
import { countingBucketReads, cursorAt, enqueueSpread, pager } from '../support/pending-pages'

/** A position `n` jobs into `expected` (its due time read from its bucket). */
async function positionOf(t: ReturnType<typeof testStore>, expected: string[], n: number) {
  const id = expected[n]!
  return { id, dueMs: Number(await t.redis.zscore(t.keys.locate(id).bucket, id)) }
}

describe('cursors', () => {
  it('refuses an altered cursor (ValidationError naming cursor) before reading anything: no walk starts', async () => {
    // prepare: 3,000 jobs over 512 buckets; a cursor deep in the queue, its position altered with its mac kept
    const t = testStore({ shards: 1, buckets: 512 })
    const expected = await enqueueSpread(t, 3_000)
    const real = await cursorAt(t.redis, t.keys, { walk: null, ...(await positionOf(t, expected, 2_000)) })
    const [text, mac] = real.split('.') as [string, string]
    const altered = `${Buffer.from(Buffer.from(text, 'base64url').toString().replace(/^(\d)/, '9')).toString('base64url')}.${mac}`
    // act
    const refused = await readPendingPage(t.redis, t.keys, { limit: 5, cursor: altered }).catch((e: unknown) => e)
    // assess
    expect(refused).toBeInstanceOf(ValidationError)
    expect((refused as ValidationError).details[0]!.path).toBe('cursor')
    expect(await t.redis.zcard(t.keys.shards[0]!.pendingWalks)).toBe(0)
    await t.close()
  })
})

describe('the cost of one page', () => {
  it('reads at most the bound of buckets per shard on every page, and the walk still lists every job once, in order', async () => {
    // prepare: 6,000 jobs over 2,048 buckets; a bound of 256 buckets a page (a frontier's first pages would read all)
    const t = testStore({ shards: 1, buckets: 2_048 })
    const expected = await enqueueSpread(t, 6_000)
    const { client, counter } = countingBucketReads(t.redis)
    const page = pager(client, t.keys, 20, 0, { pageBuckets: 256 })
    // act: a walk from a cursor 3,000 jobs in (the page that makes its frontier starts from a copy of the index)
    const ids: string[] = []
    const reads: number[] = []
    let cursor: string | null = await cursorAt(t.redis, t.keys, {
      walk: null,
      ...(await positionOf(t, expected, 2_999)),
    })
    for (let n = 0; cursor && n < 1_000; n++) {
      counter.buckets.clear()
      const next = await page(cursor)
      reads.push(counter.buckets.size)
      ids.push(...next.jobs.map((j) => j.id))
      cursor = next.cursor
    }
    // assess: every job after the cursor once, in order; no page read more than the bound (buckets, each counted once)
    expect(ids).toEqual(expected.slice(3_000))
    expect(Math.max(...reads)).toBeLessThanOrEqual(256)
    await t.close()
  })

  it('updates a walk of 2,048 buckets in calls of at most 1,000 buckets (2,006 arguments), every job still once', async () => {
    // prepare: 6,000 jobs over 2,048 buckets; the default bound (the page that copies the index reads every bucket)
    const t = testStore({ shards: 1, buckets: 2_048 })
    const expected = await enqueueSpread(t, 6_000)
    const { client, counter } = countingBucketReads(t.redis)
    const page = pager(client, t.keys, 50, 0)
    // act: a walk from a cursor 3,000 jobs in, to the end
    const ids: string[] = []
    let pages = 0
    let cursor: string | null = await cursorAt(t.redis, t.keys, {
      walk: null,
      ...(await positionOf(t, expected, 2_999)),
    })
    for (; cursor && pages < 1_000; pages++) {
      const next = await page(cursor)
      ids.push(...next.jobs.map((j) => j.id))
      cursor = next.cursor
    }
    // assess: more calls than pages (the page that read every bucket took several), none over 2,006 arguments
    expect(ids).toEqual(expected.slice(3_000))
    expect(counter.advanceArgs.length).toBeGreaterThan(pages)
    expect(Math.max(...counter.advanceArgs)).toBeLessThanOrEqual(2_006)
    await t.close()
  })
})

describe('deep pages per caller', () => {
  it('answers a caller over its deep pages 429 with Retry-After, reading nothing, while others and walks under way go on', async () => {
    // prepare: 3,000 jobs over 512 buckets; deep cursors (over 256 buckets behind them), a limit of 3 a minute
    const t = testStore({ shards: 1, buckets: 512 })
    const expected = await enqueueSpread(t, 3_000)
    const deep = async (n: number) => cursorAt(t.redis, t.keys, { walk: null, ...(await positionOf(t, expected, n)) })
    const as = (caller: string, cursor: string) =>
      readPendingPage(t.redis, t.keys, { limit: 10, cursor, caller }, { deepPagesPerWindow: 3 })
    // act: caller a starts three walks deep in the queue, then a fourth; caller b one; a goes on with its first walk
    const started = [
      await as('a', await deep(2_000)),
      await as('a', await deep(2_100)),
      await as('a', await deep(2_200)),
    ]
    const walksBefore = await t.redis.zcard(t.keys.shards[0]!.pendingWalks)
    const fourth = await as('a', await deep(2_300)).catch((e: unknown) => e)
    const walksAfter = await t.redis.zcard(t.keys.shards[0]!.pendingWalks)
    const other = await as('b', await deep(2_400))
    const goesOn = await as('a', started[0]!.cursor!)
    // assess
    expect(fourth).toBeInstanceOf(DeepPagesLimitedError)
    expect((fourth as DeepPagesLimitedError).retryAfterSeconds).toBeGreaterThan(0)
    expect((fourth as DeepPagesLimitedError).retryAfterSeconds).toBeLessThanOrEqual(60)
    expect(walksAfter).toBe(walksBefore)
    expect(other.jobs.map((j) => j.id)).toEqual(expected.slice(2_401, 2_411))
    expect(goesOn.jobs.map((j) => j.id)).toEqual(expected.slice(2_011, 2_021))
    await t.close()
  })
})

describe('jobs sharing one millisecond', () => {
  /** `count` jobs t-<n> all due at one millisecond an hour from now, and their ids in page order (by id). */
  async function enqueueTied(t: ReturnType<typeof testStore>, count: number) {
    const atMs = Date.now() + 3_600_000
    const ids = Array.from({ length: count }, (_, i) => `t-${i}`)
    for (let i = 0; i < ids.length; i += 500) {
      const batch = ids.slice(i, i + 500).map((id) => ({ id, queue: 'orders', payloadJson: '{}', due: { atMs } }))
      for (const r of await t.store.enqueueMany(batch)) if (r instanceof Error) throw r
    }
    return { atMs, ids: ids.sort() }
  }

  /** The ids of the pages from `cursor` on (at most `pages` pages), and whether the last one ended the list. */
  async function pagesFrom(page: ReturnType<typeof pager>, cursor: string | null, pages: number) {
    const ids: string[] = []
    for (let n = 0; n < pages; n++) {
      const next = await page(cursor)
      ids.push(...next.jobs.map((j) => j.id))
      cursor = next.cursor
      if (!cursor) return { ids, ended: true }
    }
    return { ids, ended: false }
  }

  it('pages from the first page through 3,000 jobs due in one millisecond over more buckets than a page reads', async () => {
    // prepare: 3,000 jobs at one due time over 1,024 buckets; pages read at most 256 buckets per shard
    const t = testStore({ shards: 1, buckets: 1_024 })
    const { ids } = await enqueueTied(t, 3_000)
    const page = pager(t.redis, t.keys, 50, undefined, { pageBuckets: 256 })
    // act: every page from the first (read without a walk's state) to the end
    const seen = await pagesFrom(page, null, 80)
    // assess: every job once, in order, and the list ends
    expect(seen.ended).toBe(true)
    expect(seen.ids).toEqual(ids)
    await t.close()
  })

  it('goes on from a cursor in the middle of the millisecond, on a walk started there, to the end', async () => {
    // prepare: the same jobs; a cursor 1,500 jobs into the millisecond (a walk's state starts from it)
    const t = testStore({ shards: 1, buckets: 1_024 })
    const { atMs, ids } = await enqueueTied(t, 3_000)
    const cursor = await cursorAt(t.redis, t.keys, { walk: null, dueMs: atMs, id: ids[1_499]! })
    const page = pager(t.redis, t.keys, 50, undefined, { pageBuckets: 256 })
    // act
    const seen = await pagesFrom(page, cursor, 40)
    // assess: every job after the cursor once, in order, and the list ends
    expect(seen.ended).toBe(true)
    expect(seen.ids).toEqual(ids.slice(1_500))
    await t.close()
  })
})
