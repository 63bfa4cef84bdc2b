// A claim's pace of a rate-limited key's burst (lua/includes/flowPace.lua, src/flow/flow-pace.ts): the claim hands
// back what the key's rate lets go now and holds the rest pending, in Redis, at their pace times, so the jobs of other
// keys due after the burst come in the next claim instead of after the whole burst. Script level, on one Redis and, in
// the "cluster" project, on the Redis Cluster.
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { groupCellMs } from '../../src/flow/flow-gate'
import type { FlowRate } from '../../src/flow/flow-names'
import { paceSpec } from '../../src/flow/flow-pace'
import type { ClaimedJob } from '../../src/scan/claims/claimed-job'
import { Leases } from '../../src/scan/claims/leases'
import type { ShardKeys } from '../../src/store/keys'
import { job, testStore } from '../support/engine'
import { redisNowMs, untilRedisMs } from '../support/pace-claims'

let t: ReturnType<typeof testStore>
let leases: Leases
let shard: ShardKeys
beforeEach(async () => {
  t = testStore({ shards: 1, buckets: 1024 })
  leases = new Leases(t.redis, { leaseMs: 30_000, maxAttempts: 3, backoffBaseMs: 50, backoffMaxMs: 50 })
  shard = t.keys.shards[0]!
  await t.redis.ping()
})
afterEach(() => t.close())

const MAIL: FlowRate = { rate: 500, burst: 50 }
const spec = (rates: Record<string, FlowRate>) => paceSpec(new Map(Object.entries(rates)), groupCellMs, 1)

const redisNow = () => redisNowMs(t.redis)
const untilRedis = (ms: number) => untilRedisMs(t.redis, ms)

/** Claims as a scanner does (hints carried from claim to claim) until `done` holds or nothing is left now. */
async function claimUntil(paces: string, done: (jobs: ClaimedJob[]) => boolean, limit = 100) {
  const jobs: ClaimedJob[] = []
  let claims = 0
  let paced = 0
  let hints = await leases.seedHints(shard, limit)
  for (;;) {
    const r = await leases.claim(shard, hints, limit, undefined, { paces, epochWanted: false })
    claims++
    hints = r.hints
    jobs.push(...r.jobs)
    for (const p of r.paced ?? []) paced += p.count
    if (done(jobs) || !r.again) return { jobs, claims, paced }
  }
}

/** The jobs waiting in the inflight set without a lease (held), id -> the time they come back. */
async function heldTimes(): Promise<Map<string, number>> {
  const scored = await t.redis.zrange(shard.inflight, '0', '-1', 'WITHSCORES')
  const held = new Map<string, number>()
  for (let i = 0; i < scored.length; i += 2) {
    const lease = await t.redis.hget(shard.leases, scored[i]!)
    if (lease?.endsWith(':')) held.set(scored[i]!, Number(scored[i + 1]))
  }
  return held
}

describe("a claim's pace of a rate-limited burst", () => {
  it("hands back no more of a key's burst than its rate lets go, and reaches the other jobs due after it at once", async () => {
    // prepare: 600 jobs of key "mail" (500/s, burst 50) due at once, and one job without a key due 1 ms later
    const due = (await redisNow()) - 1_000
    const burst = Array.from({ length: 600 }, (_, i) => job({ id: `mail-${i}`, flowKey: 'mail', due: { atMs: due } }))
    await t.store.enqueueMany([...burst, job({ id: 'other', due: { atMs: due + 1 } })])
    // act: claims of 100, paced by the key's rate, until the other job comes
    const before = await redisNow()
    const r = await claimUntil(spec({ 'k:mail': MAIL }), (jobs) => jobs.some((j) => j.id === 'other'))
    const after = await redisNow()
    // assess: the other job came within three claims of 100 (each walks as far as the hints it brought), not after
    // six claims of the burst; of the burst only the key's burst came back, the rest is held
    expect(r.jobs.some((j) => j.id === 'other')).toBe(true)
    expect(r.claims).toBeLessThanOrEqual(3)
    const mail = r.jobs.filter((j) => j.flowKey === 'mail')
    // (the burst, and what the rate lets go while the claims ran)
    expect(mail.length).toBeGreaterThanOrEqual(MAIL.burst)
    expect(mail.length).toBeLessThanOrEqual(MAIL.burst + Math.ceil((MAIL.rate * (after - before)) / 1000))
    const held = await heldTimes()
    expect(held.size + mail.length).toBe(600)
    // (a held job whose time came during the claims came back in one: counted held, then handed back)
    expect(r.paced).toBeGreaterThanOrEqual(held.size)
    // nothing early, and no faster than the rate: by any time, at most burst + rate x elapsed (+ a group of 10)
    const times = [...held.values()].sort((a, b) => a - b)
    expect(times[0]).toBeGreaterThan(before)
    times.forEach((at, i) => {
      expect(MAIL.burst + i + 1).toBeLessThanOrEqual(MAIL.burst + (MAIL.rate * (at - before)) / 1000 + 10)
    })
    // nothing lost: every job is leased or held
    expect(await t.redis.zcard(shard.inflight)).toBe(600 + 1)
  })

  it('gives a held job back at its time, pending and unleased, with no attempt counted', async () => {
    // prepare: 5 jobs of a key at 20/s, burst 1: one leaves, four are held 50 ms apart
    const due = (await redisNow()) - 10
    await t.store.enqueueMany(
      Array.from({ length: 5 }, (_, i) => job({ id: `slow-${i}`, flowKey: 'slow', due: { atMs: due } })),
    )
    const paces = spec({ 'k:slow': { rate: 20, burst: 1 } })
    const first = await claimUntil(paces, () => false)
    expect(first.jobs.map((j) => j.id)).toHaveLength(1)
    const held = await heldTimes()
    expect(held.size).toBe(4)
    // act: the claim after the last held time (a scanner that died meanwhile changes nothing: no one holds them)
    await untilRedis(Math.max(...held.values()) + 1)
    const back = await claimUntil(paces, () => false)
    // assess: all four, as first attempts (the held one's was not counted), none a crash recovery
    expect(back.jobs.map((j) => j.id).sort()).toEqual([...held.keys()].sort())
    expect(back.jobs.every((j) => j.attempt === 1)).toBe(true)
    for (const j of back.jobs) expect(await t.redis.hget(shard.leases, j.id)).toBe(`1:${j.dueMs}:${j.token}`)
  })

  it("paces no FIFO queue's jobs (the gate keeps their groups in order), nor any job without a rate", async () => {
    // prepare: 100 FIFO jobs of the limited key, 100 of a key without a rate
    const due = (await redisNow()) - 10
    await t.store.enqueueMany([
      ...Array.from({ length: 100 }, (_, i) =>
        job({ id: `f-${i}`, queue: 'events.fifo', groupId: 'g', flowKey: 'mail', due: { atMs: due } }),
      ),
      ...Array.from({ length: 100 }, (_, i) => job({ id: `n-${i}`, flowKey: 'free', due: { atMs: due } })),
    ])
    // act
    const r = await claimUntil(spec({ 'k:mail': MAIL }), () => false, 250)
    // assess: every job came back; nothing held
    expect(r.jobs).toHaveLength(200)
    expect(r.paced).toBe(0)
    expect((await heldTimes()).size).toBe(0)
  })

  it('writes nothing of its own while no rate is set', async () => {
    // prepare
    const due = (await redisNow()) - 10
    await t.store.enqueueMany(
      Array.from({ length: 20 }, (_, i) => job({ id: `m-${i}`, flowKey: 'mail', due: { atMs: due } })),
    )
    // act
    const r = await claimUntil('', () => false)
    // assess
    expect(r.jobs).toHaveLength(20)
    expect(await t.redis.exists(shard.flowPace)).toBe(0)
  })

  it("keeps a key's pace state as long as its held jobs wait, through claims that pace only another key", async () => {
    // prepare: key "slow" at 1/s, burst 1: 100 jobs due now, 99 held up to about 99 s out (past the minute a pace
    // state is kept after its latest time)
    const due = (await redisNow()) - 10
    await t.store.enqueueMany(
      Array.from({ length: 100 }, (_, i) => job({ id: `s-${i}`, flowKey: 'slow', due: { atMs: due } })),
    )
    await claimUntil(spec({ 'k:slow': { rate: 1, burst: 1 } }), () => false)
    const latest = Math.max(...(await heldTimes()).values())
    // act: slow's rate removed; a claim paces a short burst of key "quick" (its debt a few ms)
    await t.store.enqueueMany(
      Array.from({ length: 5 }, (_, i) => job({ id: `q-${i}`, flowKey: 'quick', due: { atMs: due } })),
    )
    await claimUntil(spec({ 'k:quick': MAIL }), () => false)
    // assess: the shard still knows it paced "slow" until its last held job's time (the held view names that rate)
    const ttl = await t.redis.pttl(shard.flowPace)
    expect((await redisNow()) + ttl).toBeGreaterThanOrEqual(latest)
    expect(await t.redis.hexists(shard.flowPace, 'k:slow')).toBe(1)
  })
})
