// Deep pages of GET /jobs from many callers at once never take Redis's memory from enqueues: each walk's frontier (a
// copy of the shard's index) is reserved in the script that copies it, against the shard's budget and the node's
// memory, so pages that start walks at the same moment cannot all pass a check read before any of them copied.
// A private redis-server: the test caps its memory.
import { afterEach, describe, expect, it } from 'vitest'
import { createEngine } from '../../src/store/engine'
import { readPendingPage } from '../../src/store/pending-page'
import { FRONTIER_BYTES_PER_BUCKET, WALK_MEMORY_PERCENT } from '../../src/store/pending-walk'
import { bodyOf, request, testApi, testConfig } from '../api/api-helpers'
import { cappedRedisForFile } from '../support/capped-redis'
import { uniquePrefix } from '../support/engine'
import { cursorAt, enqueueSpread } from '../support/pending-pages'

const capped = cappedRedisForFile()
const BUCKETS = 8192
const DEEP_PAGES = 16

afterEach(async () => {
  await capped.admin.config('SET', 'maxmemory', '0')
  await capped.admin.flushall()
})

/** An API on the capped server with 12,000 jobs over 8,192 buckets, and 16 cursors deep into them (no walk yet). */
async function deepQueue() {
  const env = {
    REDIS_URL: capped.server.url,
    KEY_PREFIX: uniquePrefix('walk-budget'),
    SHARDS: '1',
    DUE_BUCKETS: String(BUCKETS),
    REDIS_WAIT_REPLICAS: '0',
  }
  const apiOn = () => testApi({}, createEngine(testConfig(env)))
  const api = apiOn()
  const { redis, keys } = api.engine
  const expected = await enqueueSpread(
    { redis, keys, store: api.engine.store, close: async () => 'OK' as const },
    12_000,
  )
  const dueOf = async (id: string) => Number(await redis.zscore(keys.locate(id).bucket, id))
  // Separate callers: each a cursor of its own (a position 6,000-7,500 jobs in), in no walk.
  const starts = Array.from({ length: DEEP_PAGES }, (_, k) => 6_000 + k * 100)
  const cursors = await Promise.all(
    starts.map(async (n) => cursorAt(redis, keys, { walk: null, id: expected[n]!, dueMs: await dueOf(expected[n]!) })),
  )
  const shard = keys.shards[0]!
  // What one frontier takes in Redis, measured: a copy of the index, then dropped.
  const before = await capped.usedMemory()
  await redis.copy(shard.index, `${shard.tag}:probe`)
  const copyBytes = (await capped.usedMemory()) - before
  await redis.del(`${shard.tag}:probe`)
  const estimate = (await redis.zcard(shard.index)) * FRONTIER_BYTES_PER_BUCKET
  return { api, apiOn, expected, starts, cursors, shard, copyBytes, estimate }
}

describe('walks started by many deep pages at once', () => {
  it('hold no more than the walk budget together, and every page shows its jobs', async () => {
    // prepare: a budget of three frontiers
    const { api, expected, starts, cursors, shard, copyBytes, estimate } = await deepQueue()
    const { redis, keys } = api.engine
    const budgetBytes = 3 * estimate
    const usedBefore = await capped.usedMemory()
    // act: 16 deep pages at once
    const pages = await Promise.all(
      cursors.map((cursor) =>
        readPendingPage(redis, keys, { limit: 20, cursor }, { budgetBytes, pageBuckets: BUCKETS }),
      ),
    )
    // assess: three walks made a frontier, their reservations within the budget, Redis grown by about three copies
    pages.forEach((page, k) => {
      expect(page.jobs.map((j) => j.id)).toEqual(expected.slice(starts[k]! + 1, starts[k]! + 21))
    })
    const reserved = Object.values(await redis.hgetall(shard.pendingWalkBytes)).map(Number)
    expect(await redis.zcard(shard.pendingWalks)).toBe(3)
    expect(reserved.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(budgetBytes)
    expect((await capped.usedMemory()) - usedBefore).toBeLessThan(4 * copyBytes)
    await api.close()
  })

  it('never take Redis to its limit: POST /jobs is answered 201 right after them', async () => {
    // prepare: 16 API instances (a connection each); maxmemory 4 copies above what Redis holds, so that a check read
    // before the copies passes for each page
    const { api, apiOn, cursors, copyBytes } = await deepQueue()
    const instances = cursors.map(() => apiOn())
    const used = await capped.usedMemory()
    const maxmemory = used + 4 * copyBytes
    expect(used + copyBytes).toBeLessThan((maxmemory * WALK_MEMORY_PERCENT) / 100)
    await capped.admin.config('SET', 'maxmemory', String(maxmemory))
    // act: 16 deep pages of GET /jobs at once, one per instance, then a new job
    const answers = await Promise.all(
      cursors.map((cursor, k) => instances[k]!.call(request('GET', '/jobs', { query: { limit: '20', cursor } }))),
    )
    const created = await api.call(request('POST', '/jobs', { body: { queue: 'orders', payload: { n: 1 } } }))
    // assess: every page answered, or refused for now (503: deep, and no room for a walk's state: nothing changed);
    // the walks stopped below the memory threshold, and the write went through
    expect(answers.filter((a) => a.statusCode === 200).length).toBeGreaterThan(0)
    for (const a of answers.filter((a) => a.statusCode !== 200)) {
      expect(a.statusCode).toBe(503)
      expect(bodyOf(a).error.message).toMatch(/no room for the walk state/)
    }
    expect(created.statusCode).toBe(201)
    expect(bodyOf(created).status).toBe('scheduled')
    expect(await capped.usedMemory()).toBeLessThan((maxmemory * WALK_MEMORY_PERCENT) / 100 + copyBytes)
    await Promise.all([api, ...instances].map((a) => a.close()))
  })
})
