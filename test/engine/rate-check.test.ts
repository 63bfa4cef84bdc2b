// The judge of a flow key's rate (test/support/rate-check.ts), on times made up for it: a fake clock, no Redis.
import { describe, expect, it } from 'vitest'
import { excessOverRate } from '../support/rate-check'

/** `n` sends, `gapMs` apart, from `fromMs`. */
const evenly = (n: number, gapMs: number, fromMs = 0) => Array.from({ length: n }, (_, i) => fromMs + i * gapMs)

describe('a rate judged from send times', () => {
  it('passes sends at the rate after one burst', () => {
    // prepare: 10 at once (the burst), then one every 20 ms (50/s)
    const times = [...evenly(10, 0), ...evenly(50, 20, 20)]
    // act / assess
    expect(excessOverRate(times, 50, 10)).toBeLessThanOrEqual(0)
  })

  it('finds one job too many in a second burst that comes too soon', () => {
    // prepare: the burst of 10, then 2 more in the next 20 ms: only 1 is earned by then
    const times = [...evenly(10, 0), 20, 20]
    // act / assess
    expect(excessOverRate(times, 50, 10)).toBeCloseTo(1)
  })

  it('finds a steady stream faster than the rate, however small each burst', () => {
    // prepare: 60/s for 5 s against 50/s with a burst of 10: 50 too many by the end
    const times = evenly(300, 1000 / 60)
    // act / assess
    expect(excessOverRate(times, 50, 10)).toBeGreaterThan(30)
  })

  it('forgives measuring error up to the slack, and no more', () => {
    // prepare: 12 in 20 ms at 50/s, burst 10: 1 too many without slack; 100 ms of slack earns 5
    const times = [...evenly(10, 0), 20, 20]
    // act / assess
    expect(excessOverRate(times, 50, 10, 100)).toBeLessThanOrEqual(0)
    expect(excessOverRate(times, 50, 10, 10)).toBeGreaterThan(0)
  })
})
