// A key's rate changed while a claim's pace (lua/includes/flowPace.lua) holds a backlog of it: the jobs already held
// keep their times (docs/flow-control.md "Limits"), and a job that asks from then on is paced by the new rate. The
// shard's pace bucket counts every job it held, the key's own bucket (lua/flow-take.lua) only the jobs that asked it:
// carried over, the pace's debt under the old rate would hold a new job for the old backlog's whole span, long past
// what the key's bucket gives it. Script level, on one Redis and, in the "cluster" project, on the Redis Cluster.
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { groupCellMs } from '../../src/flow/flow-gate'
import type { FlowRate } from '../../src/flow/flow-names'
import { paceSpec } from '../../src/flow/flow-pace'
import { Leases } from '../../src/scan/claims/leases'
import type { ShardKeys } from '../../src/store/keys'
import { job, testStore } from '../support/engine'
import { claimShardPaced, redisNowMs } from '../support/pace-claims'

const SHARDS = 4
let t: ReturnType<typeof testStore>
let leases: Leases
beforeEach(async () => {
  t = testStore({ shards: SHARDS, buckets: 1024 })
  leases = new Leases(t.redis, { leaseMs: 30_000, maxAttempts: 3, backoffBaseMs: 50, backoffMaxMs: 50 })
  await t.redis.ping()
})
afterEach(() => t.close())

const paces = (rate: FlowRate) => paceSpec(new Map([['k:mail', rate]]), groupCellMs, SHARDS)

const redisNow = () => redisNowMs(t.redis)

const drainShard = (shard: ShardKeys, spec: string) => claimShardPaced(leases, shard, spec)

/** A ZRANGE WITHSCORES reply as [member, score] pairs, by member. */
const pairs = (flat: string[]) =>
  Array.from({ length: flat.length / 2 }, (_, i) => [flat[2 * i]!, flat[2 * i + 1]!]).sort(([a], [b]) =>
    a! < b! ? -1 : 1,
  )

describe("a claim's pace when the key's rate changes", () => {
  it('paces a job due after the change by the new rate, not behind the old rate held backlog', async () => {
    // prepare: 80 jobs of "mail" at 1/s (burst 1) due at once, paced by every shard: held up to ~70 s out
    const due = (await redisNow()) - 1_000
    await t.store.enqueueMany(
      Array.from({ length: 80 }, (_, i) => job({ id: `old-${i}`, flowKey: 'mail', due: { atMs: due } })),
    )
    const slow = paces({ rate: 1, burst: 1 })
    await Promise.all(t.keys.shards.map((s) => drainShard(s, slow)))
    const shard = t.keys.locate('new-0').shard
    const heldBefore = await t.redis.zrange(shard.inflight, '0', '-1', 'WITHSCORES')
    expect(Number(heldBefore.at(-1)) - due).toBeGreaterThan(30_000)

    // act: the rate raised to 1,000/s (burst 100); a new job falls due on a shard holding part of the backlog
    await t.store.enqueueMany([job({ id: 'new-0', flowKey: 'mail', due: { atMs: await redisNow() } })])
    const handed = await drainShard(shard, paces({ rate: 1_000, burst: 100 }))

    // assess: the new job is let go to ask its key's bucket (which only 4 jobs asked so far); the held ones kept their
    // times
    expect(handed).toEqual(['new-0'])
    const heldAfter = await t.redis.zrange(shard.inflight, '0', '-1', 'WITHSCORES')
    expect(pairs(heldAfter).filter(([id]) => id !== 'new-0')).toEqual(pairs(heldBefore))
  })
})
