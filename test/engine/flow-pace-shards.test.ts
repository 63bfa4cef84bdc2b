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

async function redisNow(): Promise<number> {
  const [s, us] = await t.redis.time()
  return Number(s) * 1000 + Math.floor(Number(us) / 1000)
}

/** One shard's claims until nothing is left due now: the ids handed back, and the held jobs' times. */
async function drainShard(shard: ShardKeys) {
  const handed: string[] = []
  let hints = await leases.seedHints(shard, 250)
  for (;;) {
    const r = await leases.claim(shard, hints, 250, undefined, { paces, epochWanted: false })
    hints = r.hints
    handed.push(...r.jobs.map((j) => j.id))
    if (!r.again) break
  }
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
    const shards = await Promise.all(t.keys.shards.map(drainShard))
    // assess: nothing lost; at once only about the key's burst (each shard's share of it)
    const handed = shards.flatMap((s) => s.handed)
    const held = shards.flatMap((s) => s.held).sort((a, b) => a - b)
    expect(handed.length + held.length).toBe(2_000)
    expect(handed.length).toBeLessThanOrEqual(SHARDS * Math.ceil((MAIL.burst * PACE_SLACK) / SHARDS) + 20)
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
})
