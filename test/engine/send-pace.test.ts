// The dispatcher's pace (src/scan/dispatch/send-pace.ts): how many SendMessageBatch calls stay in flight and how long
// one may wait, from SQS's answers. A fake clock: every figure is decided by the answers' times alone.
import { describe, expect, it } from 'vitest'
import { SendPace } from '../../src/scan/dispatch/send-pace'

function pace(maxInFlight = 16) {
  let now = 0
  const p = new SendPace({ maxInFlight, baseTimeoutMs: 500, maxTimeoutMs: 1_000, now: () => now })
  return { p, at: (ms: number) => (now = ms) }
}

describe('the send pace', () => {
  it('keeps every call in flight and the base timeout while SQS answers quickly', () => {
    // prepare
    const { p, at } = pace()
    // act: 100 answers of 20 ms
    for (let i = 0; i < 100; i++) {
      at(i * 100 + 20)
      p.answered(i * 100)
    }
    // assess
    expect(p.inFlight).toBe(16)
    expect(p.timeoutMs).toBe(500)
  })

  it('halves the calls in flight once per round of timeouts, and doubles the timeout up to its ceiling', () => {
    // prepare: 16 calls sent together
    const { p, at } = pace()
    // act: all 16 time out (one round), then a call sent after that round times out too (a second round)
    at(500)
    const changes = Array.from({ length: 16 }, () => p.timedOut(0))
    at(2_000)
    const second = p.timedOut(1_000)
    // assess
    expect(changes.filter(Boolean)).toEqual([{ inFlight: 8, timeoutMs: 1_000 }])
    expect(second).toEqual({ inFlight: 4, timeoutMs: 1_000 })
    expect(p.timeouts).toBe(17)
    expect(p.holdMs).toBe(1_000)
  })

  it('never goes below one call in flight', () => {
    const { p, at } = pace(4)
    for (let round = 1; round <= 5; round++) {
      at(round * 1_000)
      p.timedOut(round * 1_000 - 1)
    }
    expect(p.inFlight).toBe(1)
  })

  it('raises the timeout at once to three times an answer that took more than a third of it, up to its ceiling', () => {
    const { p, at } = pace()
    at(200)
    p.answered(0)
    expect(p.timeoutMs).toBe(600)
    at(1_400)
    p.answered(1_000)
    expect(p.timeoutMs).toBe(1_000)
    expect(p.inFlight).toBe(16)
  })

  it('grows back in a steady state of answers a third of the timeout long', () => {
    // prepare: a round of timeouts, then answers of 300 ms (the timeout settles at 900 ms)
    const { p, at } = pace()
    at(500)
    p.timedOut(0)
    // act
    for (let i = 1; i <= 20; i++) {
      at(1_000 * i + 300)
      p.answered(1_000 * i)
    }
    // assess
    expect(p.inFlight).toBe(16)
    expect(p.timeoutMs).toBeGreaterThanOrEqual(900)
  })

  it('grows the calls in flight back by one per quick answer, and brings the timeout down slowly', () => {
    // prepare: a round of timeouts
    const { p, at } = pace()
    at(500)
    p.timedOut(0)
    expect(p.inFlight).toBe(8)
    // act: quick answers again
    const timeouts: number[] = []
    for (let i = 1; i <= 12; i++) {
      at(1_000 * i + 10)
      p.answered(1_000 * i)
      timeouts.push(p.timeoutMs)
    }
    // assess: +1 per answer up to the maximum; the timeout falls a little each time and never below the base
    expect(p.inFlight).toBe(16)
    expect(timeouts[0]).toBeLessThan(1_000)
    expect(timeouts[0]).toBeGreaterThan(900)
    for (let i = 1; i < timeouts.length; i++) expect(timeouts[i]).toBeLessThanOrEqual(timeouts[i - 1]!)
    expect(timeouts.at(-1)).toBeGreaterThanOrEqual(500)
  })

  it('does not add calls for answers that took more than half the timeout', () => {
    const { p, at } = pace()
    at(500)
    p.timedOut(0)
    at(1_900)
    p.answered(1_000)
    expect(p.inFlight).toBe(8)
  })
})
