// The scanner's reading of Redis's clock (src/scan/loop/clock.ts), with samples given by hand: it keeps the tightest
// sample of one clock, follows a primary whose clock is another one at once, and keeps one reading per shard; and a
// full request's wake (src/scan/loop/wake.ts planSleep) allows for the reading's error.
import { describe, expect, it } from 'vitest'
import { RedisClock, ShardClocks } from '../../src/scan/loop/clock'
import { owesClaim, planSleep, type ShardState } from '../../src/scan/loop/wake'
import { ShardKeys } from '../../src/store/keys'

describe("the reading of Redis's clock", () => {
  it('keeps its tightest sample against looser ones of the same clock', () => {
    // prepare: a 1 ms round trip says Redis is 0 ms off
    const clock = new RedisClock()
    clock.observe(1_000, 999, 1_000)
    // act: 1 s later a 10 ms round trip says 4 ms (within its own error: the same clock, measured worse)
    clock.observe(2_009, 2_000, 2_010)
    // assess
    expect(clock.toRedis(5_000)).toBe(5_000.5)
  })

  it('follows a failover to a primary whose clock is 5 s ahead at its first sample, though the kept one was tighter', () => {
    // prepare: a 1 ms round trip on the old primary, 0 ms off
    const clock = new RedisClock()
    clock.observe(1_000, 999, 1_000)
    // act: 1 s later, the new primary answers in 4 ms with a clock 5 s ahead (no 30 s wait for the old one to age)
    clock.observe(7_002, 2_000, 2_004)
    // assess: a retry fixed now lands on the new primary's clock
    expect(clock.toRedis(3_000)).toBe(8_000)
    expect(clock.toLocal(8_000)).toBe(3_000)
  })

  it('follows a primary whose clock is behind as well', () => {
    const clock = new RedisClock()
    clock.observe(1_000, 999, 1_000)
    clock.observe(-2_998, 2_000, 2_004)
    expect(clock.toRedis(3_000)).toBe(-2_000)
  })

  it('keeps one reading per shard: a Cluster master with a skewed clock moves only its own shards', () => {
    // prepare: shard 0 on a master 0 ms off, shard 1 on one 5 s ahead, both sampled with tight round trips
    const clocks = new ShardClocks()
    clocks.observe(0, 1_000, 999, 1_000)
    clocks.observe(1, 6_000, 999, 1_000)
    clocks.observe(0, 2_000, 1_999, 2_000)
    // assess: each shard's time on its own master; a shard not sampled yet reads the one sampled last
    expect(clocks.of(0).toRedis(3_000)).toBe(3_000.5)
    expect(clocks.of(1).toRedis(3_000)).toBe(8_000.5)
    expect(clocks.of(7).toRedis(3_000)).toBe(3_000.5)
  })
})

describe("a full request's wake and the error of the clock's reading", () => {
  // A claim whose only clock sample took 100 ms (a loaded host: the event loop stalled before the call left): Redis
  // read its clock somewhere in those 100 ms, here at their end, so its clock is the local one while the reading, from
  // the middle of the trip, puts it 50 ms ahead. The first of 25 jobs due 20 ms apart falls due at 1_000_800 on Redis's
  // clock, the tenth at 1_000_980 (the claim's fullAt); the dispatch window is 2 s.
  const T = 1_000_000
  const looseClock = () => {
    const clock = new RedisClock()
    clock.observe(T + 100, T, T + 100)
    return clock
  }
  const shard = (): ShardState => ({ keys: new ShardKeys('t', 0), hints: [], sleepingUntil: 0 })
  const claim = { nextDueMs: T + 800, nextInflightMs: null, fullAtMs: T + 980 }
  const o = { pollIntervalMs: 30_000, windowMs: 2_000, untilMs: T + 60_000 }

  it("wakes for the full request once Redis's clock has reached its tenth job's due time, for any offset the sample allows", () => {
    // prepare
    const clock = looseClock()
    const s = shard()
    // act
    const wakeAt = planSleep(s, claim, clock, o)
    // assess: a full request's claim (fullBy), made when even the earliest clock the sample allows (the reading less
    // half the trip) has reached 1_000_980: sooner, the claim would take the eight or nine jobs due by then and send
    // them, a short request before ten were due or the window ended. No later than the first job's window.
    expect(s.fullBy).toBe(T + 980)
    expect(clock.toRedis(wakeAt) - clock.errorMs).toBeGreaterThanOrEqual(T + 980)
    expect(clock.toRedis(wakeAt)).toBeLessThanOrEqual(T + 800 + 2_000)
  })

  it('with a tight sample, wakes for the full request within a few ms of its tenth job', () => {
    const clock = new RedisClock()
    clock.observe(T + 1, T, T + 1)
    const wakeAt = planSleep(shard(), claim, clock, o)
    expect(clock.toRedis(wakeAt) - (T + 980)).toBeGreaterThanOrEqual(1)
    expect(clock.toRedis(wakeAt) - (T + 980)).toBeLessThan(5)
  })

  it("holds the window to its end when the reading's error would take the full request's wake past it", () => {
    // prepare: a sample whose round trip took 5 s
    const clock = new RedisClock()
    clock.observe(T + 2_500, T, T + 5_000)
    const s = shard()
    // act
    const wakeAt = planSleep(s, claim, clock, o)
    // assess: at the first job's window end as read, a claim without fullBy (it takes every job due by then)
    expect(clock.toRedis(wakeAt)).toBe(T + 800 + 2_000)
    expect(s.fullBy).toBeUndefined()
  })
})

describe("a job due at a run's deadline and the error of the clock's reading", () => {
  // A sample whose trip took 100 ms, Redis's clock read at its start: the reading puts Redis 50 ms behind, ±50.
  const T = 1_000_000
  const until = T + 10_000
  const o = { pollIntervalMs: 30_000, windowMs: 0, untilMs: until }
  const shard = (): ShardState => ({ keys: new ShardKeys('t', 0), hints: [], sleepingUntil: 0 })
  const clock = () => {
    const c = new RedisClock()
    c.observe(T, T, T + 100)
    return c
  }

  it('marks a job that reads as due after the deadline, within the error, for a claim at the deadline', () => {
    // prepare: due 20 ms before the deadline on Redis's clock, read as 30 ms after it
    const s = shard()
    // act
    const wakeAt = planSleep(s, { nextDueMs: until - 20, nextInflightMs: null }, clock(), o)
    // assess: the sleep ends at the deadline, and the run owes one claim then
    expect(wakeAt).toBe(until)
    expect(s.dueByDeadline).toBe(true)
  })

  it('does not for a job that reads as due later than the error allows, nor for one due well before', () => {
    // prepare
    const late = shard()
    const early = shard()
    // act: read as 60 ms after the deadline (the error is 50); and due a second before it
    planSleep(late, { nextDueMs: until + 10, nextInflightMs: null }, clock(), o)
    planSleep(early, { nextDueMs: until - 1_000, nextInflightMs: null }, clock(), o)
    // assess
    expect(late.dueByDeadline).toBe(false)
    expect(early.dueByDeadline).toBe(false)
  })

  it('owes one claim at the deadline for it, not one per wake: a job due just after would be claimed for on and on', () => {
    // prepare: the shard planned as above, its sleep over at the deadline
    const s = shard()
    const wakeAt = planSleep(s, { nextDueMs: until - 20, nextInflightMs: null }, clock(), o)
    // act: the claim at the deadline found nothing (the job is due after it on Redis's clock); the same plan again
    const first = owesClaim(s, wakeAt, until)
    planSleep(s, { nextDueMs: until - 20, nextInflightMs: null }, clock(), o)
    const second = owesClaim(s, wakeAt, until)
    // assess
    expect([first, second]).toEqual([true, false])
  })
})
