// Browsing pending jobs: pages in due-time order over every shard and bucket, one queue or all, with a cursor.
import { describe, expect, it } from 'vitest'
import { DelayQueue } from '../../src/direct/delay-queue'
import { loadConfig } from '../../src/config'
import { ValidationError } from '../../src/errors'
import { type PendingJob, readPendingPage } from '../../src/store/pending-page'
import { testStore } from '../support/engine'
import { countingBucketReads, enqueueSpread, pager, walkOf } from '../support/pending-pages'

async function allPages(list: (cursor: string | null) => Promise<{ jobs: PendingJob[]; cursor: string | null }>) {
  const pages: PendingJob[][] = []
  let cursor: string | null = null
  do {
    const page = await list(cursor)
    pages.push(page.jobs)
    cursor = page.cursor
  } while (cursor && pages.length < 100)
  return pages
}

describe('pending jobs, page by page', () => {
  for (const layout of [
    { shards: 3, buckets: 8 },
    { shards: 1, buckets: 1 },
  ])
    it(`pages through every job in due order, ties in one millisecond included (${layout.shards} shards of ${layout.buckets} buckets)`, async () => {
      // prepare: 60 jobs at random times and 25 due in the same millisecond (in one bucket: pages cut through them)
      const t = testStore(layout)
      const base = Date.now() + 3_600_000
      const jobs = [
        ...Array.from({ length: 60 }, (_, i) => ({ id: `r-${i}`, atMs: base + Math.floor(Math.random() * 100_000) })),
        ...Array.from({ length: 25 }, (_, i) => ({ id: `tie-${String(i).padStart(2, '0')}`, atMs: base + 50_000 })),
      ]
      for (const j of jobs) {
        const queue = j.id.startsWith('r-') && Number(j.id.slice(2)) % 3 === 0 ? 'emails' : 'orders'
        await t.store.enqueue({ id: j.id, queue, payloadJson: '{"x":1}', due: { atMs: j.atMs } })
      }
      // act: pages of 7, for all queues and for one; and with a walk's own frontier from the second page on
      const all = await allPages((cursor) => t.store.listPending({ limit: 7, cursor }))
      const walked = await allPages(pager(t.redis, t.keys, 7, 0))
      const emails = await allPages((cursor) => t.store.listPending({ queue: 'emails', limit: 7, cursor }))
      // assess: every job once, in (due time, id) order; pages never longer than asked
      const expected = [...jobs].sort((a, b) => a.atMs - b.atMs || (a.id < b.id ? -1 : 1)).map((j) => j.id)
      expect(all.flat().map((j) => j.id)).toEqual(expected)
      expect(walked.flat().map((j) => j.id)).toEqual(expected)
      expect(Math.max(...all.map((p) => p.length))).toBe(7)
      expect(all.flat()[0]).toEqual({
        id: expected[0],
        queue: expect.any(String),
        runAt: new Date(jobs.find((j) => j.id === expected[0])!.atMs).toISOString(),
        createdAt: expect.any(String),
        payloadBytes: 7,
      })
      const emailIds = expected.filter((id) => id.startsWith('r-') && Number(id.slice(2)) % 3 === 0)
      expect(emails.flat().map((j) => j.id)).toEqual(emailIds)
      expect(emails.flat().every((j) => j.queue === 'emails')).toBe(true)
      await t.close()
    })

  it('refuses a bad limit, an unknown queue and a forged cursor with the field named, reading nothing', async () => {
    // prepare
    const t = testStore()
    const config = loadConfig({ REDIS_URL: 'redis://unused', QUEUES: 'orders=http://q/orders' })
    const queue = new DelayQueue({ config, store: t.store })
    // act / assess
    for (const [options, path] of [
      [{ limit: 0 }, 'limit'],
      [{ limit: 101 }, 'limit'],
      [{ queue: 'nope' }, 'queue'],
      [{ cursor: '!!' }, 'cursor'],
      [{ cursor: Buffer.from('no-colon').toString('base64url') }, 'cursor'],
      // an id outside the id rules (two "@"): no page gives it
      [{ cursor: Buffer.from('1795000000000:a@b@1').toString('base64url') }, 'cursor'],
    ] as const) {
      const e = await queue.listPending(options).catch((err: unknown) => err)
      expect(e).toBeInstanceOf(ValidationError)
      expect((e as ValidationError).details[0]!.path).toBe(path)
    }
    await t.close()
  })
  it('reads about as many buckets per page as it shows jobs, however deep into the queue (a walk keeps its frontier)', async () => {
    // prepare: 3,000 jobs over 512 buckets; a page of 20 deep in the queue has a job before it in nearly every bucket
    const t = testStore({ shards: 1, buckets: 512 })
    const expected = await enqueueSpread(t, 3_000)
    const { client, counter } = countingBucketReads(t.redis)
    // act: walk the whole queue by cursor, counting each page's bucket reads
    const reads: number[] = []
    const ids: string[] = []
    let cursor: string | null = null
    do {
      const before = counter.reads
      const page = await readPendingPage(client, t.keys, { limit: 20, cursor })
      reads.push(counter.reads - before)
      ids.push(...page.jobs.map((j) => j.id))
      cursor = page.cursor
    } while (cursor)
    // assess: every job once, in order; past the first 2,000 jobs (some 500 buckets behind the cursor), no page
    // reads more than 5 buckets per job it shows, where a page merging from the index reads nearly all 512
    expect(ids).toEqual(expected)
    const deep = reads.slice(100)
    expect(deep.length).toBeGreaterThan(40)
    expect(Math.max(...deep)).toBeLessThanOrEqual(100)
    await t.close()
  })

  it('shows every job that stays put once, in order, while others are enqueued and cancelled during the walk', async () => {
    // prepare: 400 jobs over 32 buckets; a walk with its own frontier from its second page
    const t = testStore({ buckets: 32 })
    const base = Date.now() + 3_600_000
    const expected = await enqueueSpread(t, 400, base)
    const page = pager(t.redis, t.keys, 15, 0)
    const seen: string[] = []
    let cursor: string | null = null
    let n = 0
    // act: between pages, cancel 3 jobs not shown yet, and enqueue 3 jobs due before the walk's position and 3 after it
    const cancelled = new Set<string>()
    do {
      const result = await page(cursor)
      seen.push(...result.jobs.map((j) => j.id))
      cursor = result.cursor
      const ahead = expected.filter((id) => !seen.includes(id) && !cancelled.has(id))
      for (const id of ahead.slice(5, 8)) {
        await t.store.cancel(id)
        cancelled.add(id)
      }
      for (const [k, atMs] of [base - 1_000, base, base + 100_000 + 1_000].entries()) {
        await t.store.enqueue({ id: `new-${n}-${k}`, queue: 'orders', payloadJson: '{}', due: { atMs } })
      }
      n++
    } while (cursor && n < 200)
    // assess: the jobs that stayed put, each once and in due order; no cancelled job after its cancel
    const stayed = expected.filter((id) => !cancelled.has(id))
    expect(seen.filter((id) => id.startsWith('r-'))).toEqual(stayed)
    expect(new Set(seen).size).toBe(seen.length)
    await t.close()
  })
  it('keeps the frontiers of 16 walks per shard at most; a walk whose frontier was dropped goes on, every job once', async () => {
    // prepare: 600 jobs; 20 walks, each two pages in (each has made its frontier)
    const t = testStore({ shards: 1, buckets: 64 })
    const expected = await enqueueSpread(t, 600)
    const page = pager(t.redis, t.keys, 25, 0)
    const walks: { seen: string[]; cursor: string | null; name: string }[] = []
    for (let w = 0; w < 20; w++) {
      const first = await page(null)
      const second = await page(first.cursor)
      const name = walkOf(second.cursor!)
      walks.push({ seen: [...first.jobs, ...second.jobs].map((j) => j.id), cursor: second.cursor, name })
    }
    // act: the oldest walk (its frontier dropped) goes on to the end
    const oldest = walks[0]!
    while (oldest.cursor) {
      const next = await page(oldest.cursor)
      oldest.seen.push(...next.jobs.map((j) => j.id))
      oldest.cursor = next.cursor
    }
    // assess: 16 frontiers kept (the walk that ended deleted its own); the dropped walk missed nothing
    const shard = t.keys.shards[0]!
    expect(await t.redis.zcard(shard.pendingWalks)).toBeLessThanOrEqual(16)
    let frontiers = 0
    for (const { name } of walks) frontiers += await t.redis.exists(shard.pendingWalk(name))
    expect(frontiers).toBeLessThanOrEqual(16)
    expect(frontiers).toBeGreaterThan(10)
    expect(oldest.seen).toEqual(expected)
    await t.close()
  })
})
