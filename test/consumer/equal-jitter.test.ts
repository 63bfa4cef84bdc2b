// One retry rule on both sides of SQS (src/shared/equal-jitter.ts): the scan's dispatch retries count it in ms, the
// consumer toolkit's visibility timeouts in whole seconds, rounded up; the same policy gives the same delay on both.
import { describe, expect, it } from 'vitest'
import { backoffSeconds } from '../../src/consumer/backoff'
import { equalJitterDelay, exponentialDelay } from '../../src/shared/equal-jitter'
import { isoTime } from '../../src/shared/iso-time'
import { retryDelayMs } from '../../src/scan/claims/backoff'

describe('equal jitter', () => {
  it('doubles from the base per attempt, up to the cap, counting a missing attempt as the first', () => {
    expect([0, 1, 2, 3, 4, 5].map((a) => exponentialDelay(a, 5, 60))).toEqual([5, 5, 10, 20, 40, 60])
    expect(exponentialDelay(10_000, 0, 60)).toBe(0)
    expect(exponentialDelay(10_000, 1, Number.MAX_VALUE)).toBe(2 ** 30)
  })

  it('keeps the lower half of the delay and draws the upper half', () => {
    expect(equalJitterDelay(3, 5, 900, () => 0)).toBe(10)
    expect(equalJitterDelay(3, 5, 900, () => 0.5)).toBe(15)
    expect(equalJitterDelay(3, 5, 900, () => 1)).toBe(20)
  })

  it.each([0, 0.25, 0.5, 0.75, 1])(
    'gives the scan (ms) and the consumer toolkit (s) the same delay for one policy, random draw %d',
    (draw) => {
      // prepare: 5 s base, 15 min cap, on each side in its own unit
      const scan = { backoffBaseMs: 5_000, backoffMaxMs: 900_000 }
      const consumer = { baseSeconds: 5, capSeconds: 900, jitter: true }
      // act
      const pairs = Array.from({ length: 12 }, (_, i) => [
        retryDelayMs(i + 1, scan, () => draw),
        backoffSeconds(i + 1, consumer, () => draw),
      ])
      // assess: the consumer's is the scan's, rounded up to the second
      for (const [ms, seconds] of pairs) expect(seconds).toBe(Math.ceil(ms! / 1000))
      expect(pairs.at(-1)).toEqual([draw === 0 ? 450_000 : 450_000 * (1 + draw), Math.ceil(450 * (1 + draw))])
    },
  )
})

describe('ISO times', () => {
  it('writes epoch ms as UTC ISO-8601 with ms, and throws for a time no date can show', () => {
    expect(isoTime(0)).toBe('1970-01-01T00:00:00.000Z')
    expect(isoTime(1_795_648_056_156)).toBe('2026-11-25T23:07:36.156Z')
    expect(() => isoTime(1.795648056156e20)).toThrow(RangeError)
  })
})
