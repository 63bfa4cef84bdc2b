// Dispatch retry delays: exponential and capped, with jitter, and FIFO jobs held back behind a refused one of their
// group come back right after it, in their order.
import { describe, expect, it } from 'vitest'
import { delayOf, heldBackAt, retryAtOf, retryDelayMs } from '../../src/scan/claims/backoff'
import { claimedJob } from '../support/claimed-job'

const options = { backoffBaseMs: 1_000, backoffMaxMs: 300_000 }
const claimed = (id: string, attempt: number) => claimedJob(id, { attempt })

describe('dispatch backoff', () => {
  it('keeps half of the exponential delay and draws the other half, up to the cap', () => {
    expect(retryDelayMs(1, options, () => 0)).toBe(500)
    expect(retryDelayMs(1, options, () => 0.999999)).toBe(1_000)
    expect(retryDelayMs(4, options, () => 0.5)).toBe(6_000)
    expect(retryDelayMs(30, options, () => 1)).toBe(300_000)
    expect(retryDelayMs(30, options, () => 0)).toBe(150_000)
  })

  it('spreads jobs refused together instead of bringing them back in the same millisecond', () => {
    const delays = Array.from({ length: 1_000 }, () => retryDelayMs(5, options))
    expect(Math.min(...delays)).toBeGreaterThanOrEqual(8_000)
    expect(Math.max(...delays)).toBeLessThanOrEqual(16_000)
    expect(new Set(delays).size).toBeGreaterThan(500)
  })

  it('holds a job whose send may have reached SQS at least its hold, and its FIFO group behind that', () => {
    // prepare: attempt 1 backs off 0.5-1 s; the send timed out while the pace's timeout was 3 s
    const maybeSent = claimedJob('slow', { attempt: 1 })
    maybeSent.holdMs = 3_000
    // act
    const own = delayOf(maybeSent, options)
    const next = heldBackAt({ job: maybeSent, place: 1 }, options, 10_000)
    // assess
    expect(own).toBe(3_000)
    expect(next).toBe(retryAtOf(maybeSent, options, 10_000) + 1)
    expect(next).toBeGreaterThanOrEqual(10_000 + 3_000)
  })

  it('brings held-back FIFO jobs back after the refused one, in their places, whatever it drew', () => {
    const blocker = claimed('first', 3)
    const later = [1, 2, 3].map((place) => heldBackAt({ job: blocker, place }, options, 10_000))
    const own = delayOf(blocker, options)
    expect(later).toEqual([10_000 + own + 1, 10_000 + own + 2, 10_000 + own + 3])
    expect(delayOf(blocker, options)).toBe(own)
  })

  it("fixes a refused job's retry time once: jobs held behind it later, on a later clock, still count from it", () => {
    // prepare: the blocker's retry time is fixed when its release is built (Redis clock 10,000)
    const blocker = claimed('first', 1)
    const own = retryAtOf(blocker, options, 10_000)
    // act: a job of its group reaches the dispatcher 300 ms later, and another is released from another shard later still
    const second = heldBackAt({ job: blocker, place: 1 }, options, 10_300)
    const third = heldBackAt({ job: blocker, place: 2 }, options, 10_900)
    // assess: absolute, and in the group's order, whenever each was asked for
    expect(own).toBe(10_000 + delayOf(blocker, options))
    expect([second, third]).toEqual([own + 1, own + 2])
    expect(retryAtOf(blocker, options, 20_000)).toBe(own)
  })
})
