// Retry delays: exponential in the attempt, capped, jittered within [d/2, d], whole seconds.
import { describe, expect, it } from 'vitest'
import { jobHandler } from '../../src/consumer'
import { backoffSeconds, MAX_VISIBILITY_SECONDS } from '../../src/consumer/backoff'

const exact = { baseSeconds: 5, capSeconds: 900, jitter: false }

describe('backoffSeconds', () => {
  it('doubles with each attempt from the base', () => {
    expect([1, 2, 3, 4, 5].map((a) => backoffSeconds(a, exact))).toEqual([5, 10, 20, 40, 80])
  })

  it('never exceeds the cap, nor SQS maximum visibility timeout', () => {
    expect(backoffSeconds(20, exact)).toBe(900)
    expect(backoffSeconds(1_000, { ...exact, capSeconds: 10 ** 9 })).toBe(MAX_VISIBILITY_SECONDS)
  })

  it('spreads jittered delays over the upper half of the exponential delay', () => {
    const policy = { ...exact, jitter: true }
    expect(backoffSeconds(3, policy, () => 0)).toBe(10)
    expect(backoffSeconds(3, policy, () => 0.999999)).toBe(20)
    for (let i = 0; i < 200; i++) {
      const d = backoffSeconds(3, policy)
      expect(d).toBeGreaterThanOrEqual(10)
      expect(d).toBeLessThanOrEqual(20)
    }
  })

  it('rounds up to whole seconds and treats a missing receive count as the first attempt', () => {
    expect(backoffSeconds(1, { baseSeconds: 0.2, capSeconds: 10, jitter: false })).toBe(1)
    expect(backoffSeconds(0, exact)).toBe(5)
  })
})

describe('jobHandler options', () => {
  it('refuses a concurrency or a backoff that cannot work, at cold start', () => {
    expect(() => jobHandler(async () => {}, { concurrency: 0 })).toThrow(/concurrency must be an integer >= 1/)
    expect(() => jobHandler(async () => {}, { backoff: { baseSeconds: 10, capSeconds: 5 } })).toThrow(
      /baseSeconds <= capSeconds/,
    )
  })

  it.each([
    ['malformedRetrySeconds', -5],
    ['malformedRetrySeconds', 100_000],
    ['malformedRetrySeconds', Number.NaN],
    ['malformedRetrySeconds', 1.5],
    ['maxReceiveCount', 0],
    ['deadlineMarginMs', -1],
  ])('refuses %s = %s at cold start, naming the option and its range', (name, value) => {
    expect(() => jobHandler(async () => {}, { [name]: value })).toThrow(new RegExp(`^${name} must be an integer`))
  })
})
