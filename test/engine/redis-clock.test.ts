// The scanner's reading of Redis's clock (src/scan/loop/clock.ts), with samples given by hand: it keeps the tightest
// sample of one clock, follows a primary whose clock is another one at once, and keeps one reading per shard.
import { describe, expect, it } from 'vitest'
import { RedisClock, ShardClocks } from '../../src/scan/loop/clock'

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
