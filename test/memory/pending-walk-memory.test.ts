// Near maxmemory a walk through the pending list keeps no frontier of its own (a copy of the shard's index, 1.5 MB
// per shard as shipped, for ten minutes): its pages read the index as it is, slower deep in a queue, and enqueues keep
// the room. A private redis-server: the test caps its memory.
import { describe, expect, it } from 'vitest'
import { cappedRedisForFile } from '../support/capped-redis'
import { JobStore } from '../../src/store/job-store'
import { NO_REPLICA_WAIT } from '../../src/store/redis/replication'
import { Keyspace } from '../../src/store/keys'
import { WALK_MEMORY_PERCENT } from '../../src/store/pending-walk'
import { connectRedis } from '../../src/store/redis/redis'
import { uniquePrefix } from '../support/engine'
import { enqueueSpread, idsToEnd, pager } from '../support/pending-pages'

const capped = cappedRedisForFile()
const { usedMemory } = capped

describe('a walk near maxmemory', () => {
  it('keeps no frontier above the memory threshold, lists every job all the same, and keeps one again below it', async () => {
    // prepare: 600 jobs over 64 buckets; Redis capped so that what it uses is a little over the threshold
    const keys = new Keyspace({ prefix: uniquePrefix('walk-full'), shards: 1, buckets: 64 })
    const redis = connectRedis({ url: capped.server.url })
    const t = { redis, keys, store: new JobStore(redis, keys, undefined, NO_REPLICA_WAIT), close: () => redis.quit() }
    const expected = await enqueueSpread(t, 600)
    const page = pager(redis, keys, 25, 0)
    const walks = () => redis.zcard(keys.shards[0]!.pendingWalks)
    const cap = Math.floor(((await usedMemory()) * 100) / (WALK_MEMORY_PERCENT + 5))
    await capped.admin.config('SET', 'maxmemory', String(cap))
    // act: a walk while near full (its second page would make a frontier), to the end; then, with room again, a second walk's second page
    const first = await page(null)
    const second = await page(first.cursor)
    const listedNear = await walks()
    const near = [...first.jobs, ...second.jobs].map((j) => j.id).concat(await idsToEnd(page, second.cursor))
    await capped.admin.config('SET', 'maxmemory', '0')
    await page((await page(null)).cursor)
    const listedWithRoom = await walks()
    // assess: near full, no walk kept and every job once; with room, the walk keeps its frontier
    expect(near).toEqual(expected)
    expect(listedNear).toBe(0)
    expect(listedWithRoom).toBe(1)
    await t.close()
  })
})
