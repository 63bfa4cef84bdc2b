// A walk's frontier (src/store/pending-walk.ts) while other pages change it: other walks dropping it (the 16-walk
// cap), a cursor of the same walk ending it, an earlier page of the same walk read again at the same time. Each page
// still shows exactly the jobs it would alone, and every walk goes on to list each job once, in order.
import { afterEach, describe, expect, it, vi } from 'vitest'
import { readPendingPage } from '../../src/store/pending-page'
import { testStore } from '../support/engine'
import { cursorAt, enqueueSpread, idsToEnd, interleaved, pager, walkOf } from '../support/pending-pages'

type TestStore = ReturnType<typeof testStore>

afterEach(() => {
  vi.useRealTimers()
})

describe('a walk whose frontier changes while a page reads it', () => {
  const meanwhile = {
    // 16 walks make their frontiers: the 17th walk on the shard drops the least recently used one, this page's
    'other walks drop it': async (page: ReturnType<typeof pager>) => {
      for (let w = 0; w < 16; w++) await page((await page(null)).cursor)
    },
    // a cursor of the same walk past the last job (forged): its empty page ends the walk, deleting the frontier
    'a cursor of its walk ends it': async (page: ReturnType<typeof pager>, walk: string, t: TestStore) => {
      await page(await cursorAt(t.redis, t.keys, { walk, dueMs: 9e14, id: 'zz' }))
    },
  }
  for (const [what, during] of Object.entries(meanwhile))
    for (const pageNo of [2, 3])
      it(`shows page ${pageNo} whole and the walk goes on to every job once (${what})`, async () => {
        // prepare: 600 jobs over 64 buckets; a walk with its own frontier from its second page (page 2 makes it)
        const t = testStore({ shards: 1, buckets: 64 })
        const expected = await enqueueSpread(t, 600)
        const page = pager(t.redis, t.keys, 25, 0)
        const seen: string[] = []
        let cursor: string | null = null
        for (let n = 1; n < pageNo; n++) {
          const before = await page(cursor)
          seen.push(...before.jobs.map((j) => j.id))
          cursor = before.cursor
        }
        const walk = walkOf(cursor!)
        // act: page `pageNo`, whose frontier goes while it reads it; then the rest of the walk
        const client = interleaved(t.redis, () => during(page, walk, t))
        const hit = await readPendingPage(
          client,
          t.keys,
          { limit: 25, cursor },
          { shallowBuckets: 0, deepPagesPerWindow: 1e6 },
        )
        seen.push(...hit.jobs.map((j) => j.id), ...(await idsToEnd(page, hit.cursor)))
        // assess: the page is whole (it was empty, with no cursor: the walk ended), and no job is skipped after it
        expect(hit.jobs.map((j) => j.id)).toEqual(expected.slice((pageNo - 1) * 25, pageNo * 25))
        expect(seen).toEqual(expected)
        await t.close()
      })
})

describe('two pages of one walk at once', () => {
  it('an earlier page read again while the next one runs shows its jobs as before, and both go on to every job once', async () => {
    // prepare: 600 jobs; a walk three pages in (its frontier holds the position after page 3)
    const t = testStore({ shards: 1, buckets: 64 })
    const expected = await enqueueSpread(t, 600)
    const page = pager(t.redis, t.keys, 25, 0)
    const p1 = await page(null)
    const p2 = await page(p1.cursor)
    const p3 = await page(p2.cursor)
    // act: page 3 again (the dashboard's Previous page) while page 4 (its Next page, not cancelled) reads
    let p4 = { jobs: [] as { id: string }[], cursor: null as string | null }
    const client = interleaved(t.redis, async () => {
      p4 = await page(p3.cursor)
    })
    const again = await readPendingPage(
      client,
      t.keys,
      { limit: 25, cursor: p2.cursor },
      { shallowBuckets: 0, deepPagesPerWindow: 1e6 },
    )
    const fromAgain = await idsToEnd(page, again.cursor)
    const fromP4 = await idsToEnd(page, p4.cursor)
    // assess: page 3 is what it was; page 4 follows page 3; each walk lists every job after its page once, in order
    expect(again.jobs.map((j) => j.id)).toEqual(p3.jobs.map((j) => j.id))
    expect(p4.jobs.map((j) => j.id)).toEqual(expected.slice(75, 100))
    expect([...again.jobs.map((j) => j.id), ...fromAgain]).toEqual(expected.slice(50))
    expect([...p4.jobs.map((j) => j.id), ...fromP4]).toEqual(expected.slice(75))
    // the earlier page started a walk of its own: the live frontier was not overwritten
    expect(walkOf(again.cursor!)).not.toBe(walkOf(p3.cursor!))
    await t.close()
  })
})

describe('the walks a shard lists', () => {
  it("are scored by Redis's clock when last used, whatever the client's clock says", async () => {
    // prepare: 600 jobs; the client's clock a day behind
    const t = testStore({ shards: 1, buckets: 64 })
    await enqueueSpread(t, 600)
    const page = pager(t.redis, t.keys, 25, 0)
    vi.useFakeTimers({ toFake: ['Date'] })
    vi.setSystemTime(Date.now() - 86_400_000)
    // act: a walk makes its frontier (page 2) and raises it (page 3)
    const second = await page((await page(null)).cursor)
    const made = Number(await t.redis.zscore(t.keys.shards[0]!.pendingWalks, walkOf(second.cursor!)))
    await page(second.cursor)
    const used = Number(await t.redis.zscore(t.keys.shards[0]!.pendingWalks, walkOf(second.cursor!)))
    vi.useRealTimers()
    // assess: both within a minute of Redis's time
    const [seconds] = await t.redis.time()
    expect(Math.abs(made - Number(seconds) * 1000)).toBeLessThan(60_000)
    expect(Math.abs(used - Number(seconds) * 1000)).toBeLessThan(60_000)
    expect(used).toBeGreaterThanOrEqual(made)
    await t.close()
  })
})
