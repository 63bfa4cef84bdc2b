// The chaos checker's FIFO promise on hand-made histories: a group's jobs reach SQS in due-time order; an inversion
// is let pass only as the design's relaxations name it (two runs at once, within two leases; a fault between the
// earlier job's due time and its send), and is caught otherwise.
import { describe, expect, it } from 'vitest'
import { check } from './checker'
import { historyOf, T0 } from './fixtures'
import type { Delivery, Fault, Op } from './history'

/** Three jobs of group g due 200 ms apart, created in one acknowledged batch. */
const ops: Partial<Op>[] = [0, 1, 2].map((i) => ({
  kind: 'create',
  via: 'batch',
  id: `f.${i}`,
  token: `t${i}`,
  groupId: 'g',
  runAtMs: T0 + 1_000 + i * 200,
  status: 200,
}))

/** Deliveries of the jobs named, in the order given (SQS sequence numbers rising), at the given send times. */
function sent(...order: [job: number, sentAt: number][]): Partial<Delivery>[] {
  return order.map(([i, at], k) => ({
    jobId: `f.${i}`,
    token: `t${i}`,
    groupId: 'g',
    sequence: String(10n ** 19n + BigInt(k)),
    sentAt: at,
    runAtMs: T0 + 1_000 + i * 200,
  }))
}

const fifoViolations = (deliveries: Partial<Delivery>[], faults: Fault[] = [], scanners = 2) => {
  const h = historyOf({ ops, deliveries, faults })
  h.settings.scanners = scanners
  const verdict = check(h)
  return { verdict, fifo: verdict.violations.filter((v) => v.promise === 'fifo-order') }
}

describe('the chaos checker on FIFO order', () => {
  it('passes a group delivered in due-time order', () => {
    const { verdict, fifo } = fifoViolations(sent([0, T0 + 1_001], [1, T0 + 1_201], [2, T0 + 1_401]))
    expect(fifo).toEqual([])
    expect(verdict.valid).toBe(true)
    expect(verdict.figures['fifo-order']).toMatchObject({ checked: 3, pairs: 3, inversions: 0 })
  })

  it('catches a later job sent more than two leases before an earlier one, with no fault to explain it', () => {
    // f.0 due at +1000 goes last, 4.6 s after f.2 (the lease is 2 s): no pair of runs kept it that long without a fault.
    const { fifo } = fifoViolations(sent([1, T0 + 1_201], [2, T0 + 1_401], [0, T0 + 6_000]))
    expect(fifo.map((v) => v.ids)).toEqual([
      ['f.0', 'f.1'],
      ['f.0', 'f.2'],
    ])
  })

  it('orders by SQS sequence numbers, not by send times that tie', () => {
    // The same SentTimestamp for all three; the sequence says f.2 went before f.0, and a lone scanner has no excuse.
    const { fifo } = fifoViolations(sent([2, T0 + 1_500], [0, T0 + 1_500], [1, T0 + 1_500]), [], 1)
    expect(fifo.map((v) => v.ids)).toEqual([
      ['f.0', 'f.2'],
      ['f.1', 'f.2'],
    ])
  })

  it('lets an inversion within two leases pass as two runs at once, but not with one scanner', () => {
    const order = sent([1, T0 + 1_201], [0, T0 + 4_700], [2, T0 + 4_701])
    const two = fifoViolations(order)
    expect(two.fifo).toEqual([])
    expect(two.verdict.figures['fifo-order']).toMatchObject({ inversions: 1, excusedTwoRuns: 1 })
    expect(fifoViolations(order, [], 1).fifo.map((v) => v.ids)).toEqual([['f.0', 'f.1']])
  })

  it('lets an inversion pass when a fault fell between the earlier job due time and its send, not one before', () => {
    const order = sent([1, T0 + 1_201], [2, T0 + 1_401], [0, T0 + 6_000])
    const refusals: Fault = { kind: 'sqs-refuse', start: T0 + 900, end: T0 + 3_000 }
    const excused = fifoViolations(order, [refusals])
    expect(excused.fifo).toEqual([])
    expect(excused.verdict.figures['fifo-order']).toMatchObject({ inversions: 2, excusedFault: 2 })
    // Over before the job was due, or one that never touches dispatch: no excuse.
    const before: Fault = { kind: 'scanner-kill', start: T0, end: T0 + 500 }
    const apiOnly: Fault = { kind: 'api-partition', start: T0 + 900, end: T0 + 3_000 }
    expect(fifoViolations(order, [before, apiOnly]).fifo).toHaveLength(2)
  })

  it('holds no order against a job whose write landed after its due time, later than the other job went', () => {
    // f.0 asked for +1000 but its call ran from +900 to +6000 (an API partition): it may have been due only at +6000,
    // after f.1 and f.2 were sent. The history cannot tell, so the pair is not held to an order.
    const late: Partial<Op>[] = ops.map((op, i) =>
      i === 0 ? { ...op, invokeAt: T0 + 900, completeAt: T0 + 6_000 } : op,
    )
    const h = historyOf({
      ops: late,
      deliveries: sent([1, T0 + 1_201], [2, T0 + 1_401], [0, T0 + 6_001]),
    })
    const verdict = check(h)
    expect(verdict.violations.filter((v) => v.promise === 'fifo-order')).toEqual([])
    expect(verdict.figures['fifo-order']).toMatchObject({ pairs: 1, uncertainDue: 2, inversions: 0 })
  })

  it('judges each job by its first message: a duplicate sent later breaks no order', () => {
    const { fifo } = fifoViolations(sent([0, T0 + 1_001], [1, T0 + 1_201], [2, T0 + 1_401], [0, T0 + 5_000]))
    expect(fifo).toEqual([])
  })
})
