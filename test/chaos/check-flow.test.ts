// The chaos checker's flow control promises on hand-made histories: a paused key's jobs held, a limited key's jobs
// at its rate; each broken promise caught, and a pause or a resume whose answer was lost never held against the system.
import { describe, expect, it } from 'vitest'
import { check } from './checker'
import { created, historyOf, T0 } from './fixtures'
import type { Delivery, FlowOp, Op } from './history'

const promisesBroken = (h: ReturnType<typeof historyOf>) => [...new Set(check(h).violations.map((v) => v.promise))]

/** `n` acknowledged creates of flow key `key`, job ids `<key>-<i>`, due at T0 + 1 s. */
const jobsOf = (key: string, n: number): Partial<Op>[] =>
  Array.from({ length: n }, (_, i) => created({ id: `${key}-${i}`, token: `${key}${i}`, flowKey: key }))

/** Job i of `key` reaching SQS at T0 + `atMs[i]`. */
const sentAt = (key: string, atMs: number[]): Partial<Delivery>[] =>
  atMs.map((at, i) => ({ jobId: `${key}-${i}`, token: `${key}${i}`, sentAt: T0 + at }))

const flowOp = (op: Partial<FlowOp> & Pick<FlowOp, 'kind' | 'invokeAt'>): FlowOp => ({
  flowKey: 'k',
  completeAt: op.invokeAt + 10,
  outcome: 'ok',
  ...op,
})

describe('the chaos checker on flow control', () => {
  it('passes a paused key whose jobs reach SQS only after its resume, and a limited key at its rate', () => {
    // prepare: "k" paused from T0 + 500 to T0 + 5000; "r" limited to 10/s, burst 2, its 6 jobs 100 ms apart after 2
    const h = historyOf({
      ops: [...jobsOf('k', 3), ...jobsOf('r', 6)],
      deliveries: [...sentAt('k', [5_050, 5_060, 5_070]), ...sentAt('r', [1_000, 1_000, 1_100, 1_200, 1_300, 1_400])],
      flow: [
        flowOp({ kind: 'rate', flowKey: 'r', rate: 10, burst: 2, invokeAt: T0 - 100 }),
        flowOp({ kind: 'pause', invokeAt: T0 + 500 }),
        flowOp({ kind: 'resume', invokeAt: T0 + 5_000 }),
      ],
    })
    // act
    const verdict = check(h)
    // assess
    expect(verdict.violations).toEqual([])
    expect(verdict.figures['paused-held'].checked).toBe(3)
    expect(verdict.figures['rate-bounded'].checked).toBe(6)
  })

  it('catches a job of a paused key that reached SQS a lease after the pause answered', () => {
    // prepare: the lease is 2 s; one job lands 2.5 s into the pause
    const h = historyOf({
      ops: jobsOf('k', 2),
      deliveries: sentAt('k', [1_000, 3_020]),
      flow: [flowOp({ kind: 'pause', invokeAt: T0 + 500 }), flowOp({ kind: 'resume', invokeAt: T0 + 5_000 })],
    })
    // act / assess: the first one was within a lease of the answer (a send under way); the second was not
    expect(check(h).violations.map((v) => v.ids)).toEqual([['k-1']])
    expect(promisesBroken(h)).toEqual(['paused-held'])
  })

  it('holds nothing against a pause whose answer was lost', () => {
    const h = historyOf({
      ops: jobsOf('k', 1),
      deliveries: sentAt('k', [3_000]),
      flow: [flowOp({ kind: 'pause', invokeAt: T0 + 500, outcome: 'unknown' })],
    })
    expect(check(h).valid).toBe(true)
  })

  it('catches a limited key going over its rate by more than a burst, and not over it by a burst', () => {
    // prepare: 10/s, burst 2 (with 110 ms of slack: the clock tolerance and a token's 100 ms): 4 jobs in the first
    // 50 ms is one too many; 2 at once then 1 each 100 ms is fine
    const rate = flowOp({ kind: 'rate', flowKey: 'r', rate: 10, burst: 2, invokeAt: T0 - 100 })
    const over = historyOf({ ops: jobsOf('r', 4), deliveries: sentAt('r', [1_000, 1_020, 1_040, 1_050]), flow: [rate] })
    const kept = historyOf({ ops: jobsOf('r', 3), deliveries: sentAt('r', [1_000, 1_000, 1_100]), flow: [rate] })
    // act / assess
    expect(promisesBroken(over)).toEqual(['rate-bounded'])
    expect(check(kept).valid).toBe(true)
  })

  it('counts a burst over the rate right after an SQS fault apart, as the SDK retries of several sends landing together', () => {
    // prepare: as above, 4 jobs in 50 ms; SQS dropped answers a second before
    const rate = flowOp({ kind: 'rate', flowKey: 'r', rate: 10, burst: 2, invokeAt: T0 - 100 })
    const h = historyOf({
      ops: jobsOf('r', 4),
      deliveries: sentAt('r', [1_000, 1_020, 1_040, 1_050]),
      flow: [rate],
      faults: [{ kind: 'sqs-drop-answers', start: T0, end: T0 + 80 }],
    })
    // act
    const verdict = check(h)
    // assess
    expect(verdict.figures['rate-bounded'].violations).toBe(0)
    expect(verdict.figures['rate-bounded'].excusedFault).toBe(1)
  })

  it('counts a burst apart that SQS stamped while a send it then left unanswered was on its way, not one a lease before', () => {
    // prepare: 20/s, burst 4: 8 jobs stamped within 1 ms (SQS took sends that left apart at once); a scanner reports a
    // send unanswered 263 ms later (its timeout fired: SQS was slow while it was on its way), or 2.5 s later
    const rate = flowOp({ kind: 'rate', flowKey: 'r', rate: 20, burst: 4, invokeAt: T0 - 100 })
    const unansweredAt = (ms: number) => [{ kind: 'unanswered' as const, at: T0 + ms, scanner: 's1', count: 4 }]
    const burst = {
      ops: jobsOf('r', 8),
      deliveries: sentAt('r', [1_000, 1_001, 1_001, 1_001, 1_001, 1_001, 1_001, 1_001]),
    }
    const slowSqs = historyOf({ ...burst, flow: [rate], environment: unansweredAt(1_264) })
    const laterTrouble = historyOf({ ...burst, flow: [rate], environment: unansweredAt(3_500) })
    // act
    const excused = check(slowSqs)
    // assess
    expect(excused.figures['rate-bounded']).toMatchObject({ violations: 0, excusedFault: 1 })
    expect(promisesBroken(laterTrouble)).toEqual(['rate-bounded'])
  })

  it('counts a job once: a second copy of it is not a faster rate', () => {
    const rate = flowOp({ kind: 'rate', flowKey: 'r', rate: 10, burst: 1, invokeAt: T0 - 100 })
    const h = historyOf({
      ops: jobsOf('r', 2),
      deliveries: [...sentAt('r', [1_000, 1_100]), { jobId: 'r-0', token: 'r0', sentAt: T0 + 1_050 }],
      flow: [rate],
    })
    expect(check(h).figures['rate-bounded'].violations).toBe(0)
  })

  it('judges a limited key where its sends started: a slow SQS stamping them together is no violation, a fast start is', () => {
    // prepare: 20/s, burst 4: 10 jobs SQS stamped within 5 ms and no send reported unanswered (SQS was only slow);
    // their sends started 50 ms apart (at the rate), or all within 20 ms (over it)
    const rate = flowOp({ kind: 'rate', flowKey: 'r', rate: 20, burst: 4, invokeAt: T0 - 100 })
    const burst = {
      ops: jobsOf('r', 10),
      deliveries: sentAt('r', [1_000, 1_001, 1_001, 1_002, 1_002, 1_003, 1_003, 1_004, 1_004, 1_005]),
      flow: [rate],
    }
    const startsEvery = (stepMs: number) =>
      Array.from({ length: 10 }, (_, i) => ({ jobId: `r-${i}`, at: T0 + 500 + i * stepMs, scanner: 's1' }))
    const atRate = historyOf({ ...burst, sendStarts: startsEvery(50) })
    const tooFast = historyOf({ ...burst, sendStarts: startsEvery(2) })
    // act
    const kept = check(atRate)
    // assess: judged at start; the bunching at SQS accept reported
    expect(kept.figures['rate-bounded']).toMatchObject({ violations: 0, overAtAccept: 1, unstarted: 0 })
    expect(promisesBroken(tooFast)).toEqual(['rate-bounded'])
    expect(check(tooFast).violations[0]!.message).toContain('started their sends')
  })

  it('counts apart a fast start while a scanner was frozen, and a job whose start line was lost is left out', () => {
    // prepare: 10/s, burst 1: jobs 0-2 start within 10 ms right after a scanner's SIGSTOP ended; job 3 has no start
    const rate = flowOp({ kind: 'rate', flowKey: 'r', rate: 10, burst: 1, invokeAt: T0 - 100 })
    const h = historyOf({
      ops: jobsOf('r', 4),
      deliveries: sentAt('r', [1_000, 1_005, 1_010, 1_500]),
      flow: [rate],
      faults: [{ kind: 'scanner-pause', start: T0 + 200, end: T0 + 900, target: 's1' }],
      sendStarts: [0, 5, 10].map((ms, i) => ({ jobId: `r-${i}`, at: T0 + 950 + ms, scanner: 's1' })),
    })
    // act
    const verdict = check(h)
    // assess
    expect(verdict.figures['rate-bounded']).toMatchObject({ violations: 0, excusedFault: 1, unstarted: 1 })
  })
})
