// A claim's pace of a rate-limited key with several shards (src/flow/flow-pace.ts, lua/includes/flowPace.lua): each
// shard paces its own part of the key's burst at its share of the key's rate (with a little slack), so together the
// shards bring the burst back at about the key's rate: not S times faster (each at the key's rate: most of it held
// again by the gate), and not held back by the shard whose part is a little larger than its share.
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { groupCellMs } from '../../src/flow/flow-gate'
import type { FlowRate } from '../../src/flow/flow-names'
import { PACE_SLACK, paceSpec } from '../../src/flow/flow-pace'
import { Leases } from '../../src/scan/claims/leases'
import type { ShardKeys } from '../../src/store/keys'
import { job, testStore } from '../support/engine'
import { claimShardPaced, redisNowMs, untilRedisMs } from '../support/pace-claims'

const SHARDS = 4
let t: ReturnType<typeof testStore>
let leases: Leases
beforeEach(async () => {
  t = testStore({ shards: SHARDS, buckets: 1024 })
  leases = new Leases(t.redis, { leaseMs: 30_000, maxAttempts: 3, backoffBaseMs: 50, backoffMaxMs: 50 })
  await t.redis.ping()
})
afterEach(() => t.close())

const MAIL: FlowRate = { rate: 500, burst: 50 }
const paces = paceSpec(new Map([['k:mail', MAIL]]), groupCellMs, SHARDS)

const redisNow = () => redisNowMs(t.redis)
const untilRedis = (ms: number) => untilRedisMs(t.redis, ms)

/** One shard's claims until nothing is left due now: the ids handed back, and the held jobs' times. */
async function drainShard(shard: ShardKeys, spec = paces) {
  const handed = await claimShardPaced(leases, shard, spec)
  const held: number[] = []
  const scored = await t.redis.zrange(shard.inflight, '0', '-1', 'WITHSCORES')
  for (let i = 0; i < scored.length; i += 2) {
    if ((await t.redis.hget(shard.leases, scored[i]!))?.endsWith(':')) held.push(Number(scored[i + 1]))
  }
  return { handed, held }
}

describe("a claim's pace of a rate-limited key over several shards", () => {
  it('brings a burst back at about the key rate in all, in groups that take turns between the shards', async () => {
    // prepare: 2,000 jobs of "mail" (500/s, burst 50) due at once, spread over 4 shards by their ids
    const due = (await redisNow()) - 1_000
    await t.store.enqueueMany(
      Array.from({ length: 2_000 }, (_, i) => job({ id: `mail-${i}`, flowKey: 'mail', due: { atMs: due } })),
    )
    // act: every shard's claims
    const before = await redisNow()
    const shards = await Promise.all(t.keys.shards.map((s) => drainShard(s)))
    const drainMs = (await redisNow()) - before
    // assess: nothing lost; at once only about the key's burst (each shard's share of it), and what came due while the
    // claims ran (a slow machine's drain lets held jobs' times pass)
    const handed = shards.flatMap((s) => s.handed)
    const held = shards.flatMap((s) => s.held).sort((a, b) => a - b)
    expect(handed.length + held.length).toBe(2_000)
    // (and each shard's first 10 over the rate, which come back at the key's rate over them: flowPace.lua SHARD_ALONE)
    const dueMeanwhile = Math.ceil((MAIL.rate * PACE_SLACK * drainMs) / 1000)
    expect(handed.length).toBeLessThanOrEqual(
      SHARDS * Math.ceil((MAIL.burst * PACE_SLACK) / SHARDS) + SHARDS * 10 + 20 + dueMeanwhile,
    )
    // no faster than the key's rate with the slack, by any time (plus each shard's group coming back at once)
    const paced = MAIL.rate * PACE_SLACK
    held.forEach((at, i) => {
      expect(i + 1).toBeLessThanOrEqual(MAIL.burst + (paced * (at - before)) / 1000 + SHARDS * 10)
    })
    // not held back: the last comes back about when the key's rate lets the whole burst go (3.9 s), not after the
    // largest shard's part at an exact share (1/4 of the rate)
    const keyTimeMs = ((2_000 - MAIL.burst) / MAIL.rate) * 1000
    expect(held.at(-1)! - before).toBeLessThan(keyTimeMs * 1.1)
    // the shards' groups come back at different times within a cell, not all at each cell's end
    const phases = new Set(shards.map((s) => Math.round(s.held[0]! % ((groupCellMs(MAIL) * SHARDS) / PACE_SLACK))))
    expect(phases.size).toBeGreaterThan(1)
  })

  it("holds a key's few jobs on one shard no longer than the key's rate over them needs", async () => {
    // prepare: 4 jobs of "slow" (10/s, burst 1) due at once, all on one shard: the key lets them go 100 ms apart
    const shard = t.keys.shards[1]!
    const ids: string[] = []
    for (let i = 0; ids.length < 4; i++)
      if (t.keys.locate(`slow-${i}`).shard.shard === shard.shard) ids.push(`slow-${i}`)
    const due = (await redisNow()) - 1_000
    await t.store.enqueueMany(ids.map((id) => job({ id, flowKey: 'slow', due: { atMs: due } })))
    // act
    const before = await redisNow()
    const r = await drainShard(shard, paceSpec(new Map([['k:slow', { rate: 10, burst: 1 }]]), groupCellMs, SHARDS))
    const after = await redisNow()
    // assess: one at once; the others come back 100, 200, 300 ms on (not at the shard's share of the rate: 370 ms
    // apart), and no earlier
    expect(r.handed).toHaveLength(1)
    expect(r.held).toHaveLength(3)
    r.held.forEach((at, i) => {
      expect(at).toBeGreaterThanOrEqual(before + 100 * (i + 1))
      expect(at).toBeLessThanOrEqual(after + 100 * (i + 1) + 1)
    })
  })

  it("lets a key's job go when the key's rate over its shard's jobs does, in a stream under the rate", async () => {
    // prepare: "slow" at 10/s (burst 1); one of its jobs claimed on a shard
    const shard = t.keys.shards[2]!
    const ids: string[] = []
    for (let i = 0; ids.length < 2; i++)
      if (t.keys.locate(`trickle-${i}`).shard.shard === shard.shard) ids.push(`trickle-${i}`)
    const spec = paceSpec(new Map([['k:slow', { rate: 10, burst: 1 }]]), groupCellMs, SHARDS)
    await t.store.enqueueMany([job({ id: ids[0]!, flowKey: 'slow' })])
    const first = await drainShard(shard, spec)
    expect(first.handed).toEqual([ids[0]])
    // act: the key's next job falls due on the same shard 150 ms later (the key's rate lets one go every 100 ms)
    await untilRedis((await redisNow()) + 150)
    await t.store.enqueueMany([job({ id: ids[1]!, flowKey: 'slow' })])
    const second = await drainShard(shard, spec)
    // assess: handed back at once (at the shard's share of the rate it waited until 370 ms after the first)
    expect(second.handed).toEqual([ids[1]])
    expect(second.held).toEqual([])
  })
})
