// What a shard's walks reserve of Redis's memory (lua/walk-start.lua, lua/walk-advance.lua): a walk whose frontier
// alone is over the budget is still let in (one at a time), and the reservations live as long as the walks they count.
import { describe, expect, it } from 'vitest'
import { PendingPageBusyError } from '../../src/errors'
import { FRONTIER_BYTES_PER_BUCKET, WALK_TTL_MS } from '../../src/store/pending-walk'
import { testStore } from '../support/engine'
import { cursorAt, enqueueSpread, pager } from '../support/pending-pages'

/** 3,000 jobs over 512 buckets, and a cursor `n` jobs in (no walk yet). */
async function deepQueue(t: ReturnType<typeof testStore>) {
  const expected = await enqueueSpread(t, 3_000)
  const cursor = async (n: number) => {
    const id = expected[n]!
    return cursorAt(t.redis, t.keys, {
      walk: null,
      id,
      dueMs: Number(await t.redis.zscore(t.keys.locate(id).bucket, id)),
    })
  }
  return { expected, cursor }
}

describe('the walk budget', () => {
  it('lets one walk in when its frontier alone is over the budget, and no second one beside it', async () => {
    // prepare: a budget one byte short of one frontier; pages that read at most 64 buckets (without a walk's state a
    // page this deep places no job)
    const t = testStore({ shards: 1, buckets: 512 })
    const { expected, cursor } = await deepQueue(t)
    const budgetBytes = 512 * FRONTIER_BYTES_PER_BUCKET - 1
    const page = pager(t.redis, t.keys, 20, undefined, { budgetBytes, pageBuckets: 64 })
    // act: a walk from a deep cursor (its first pages warm its frontier, perhaps showing none), 40 jobs far; then a
    // deep page of another walk
    const ids: string[] = []
    let next: string | null = await cursor(2_000)
    for (let n = 0; next && ids.length < 40 && n < 50; n++) {
      const shown = await page(next)
      ids.push(...shown.jobs.map((j) => j.id))
      next = shown.cursor
    }
    const other = await page(await cursor(2_500)).catch((e: unknown) => e)
    // assess: the first walk made its frontier and goes on; the other finds no room (503 for now)
    expect(ids.slice(0, 40)).toEqual(expected.slice(2_001, 2_041))
    expect(await t.redis.zcard(t.keys.shards[0]!.pendingWalks)).toBe(1)
    expect(other).toBeInstanceOf(PendingPageBusyError)
    await t.close()
  })
})

describe('the reservations of walks', () => {
  it('live as long as the walks: each page of a walk renews them with the walk', async () => {
    // prepare: a walk under way; its reservations about to expire (as if the walk had started long ago)
    const t = testStore({ shards: 1, buckets: 512 })
    const { cursor } = await deepQueue(t)
    const shard = t.keys.shards[0]!
    const page = pager(t.redis, t.keys, 20)
    const first = await page(await cursor(2_000))
    await t.redis.pexpire(shard.pendingWalkBytes, 5_000)
    // act: the walk's next page
    await page(first.cursor)
    // assess: the reservations live as long as the walk's list
    expect(await t.redis.hlen(shard.pendingWalkBytes)).toBe(1)
    expect(await t.redis.pttl(shard.pendingWalkBytes)).toBeGreaterThan(WALK_TTL_MS)
    await t.close()
  })
})
