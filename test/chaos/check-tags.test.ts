// The checker's tag and debounce promises on hand-made histories: kept ones pass, broken ones are caught.
import { describe, expect, it } from 'vitest'
import { check } from './checker'
import { historyOf, T0 } from './fixtures'
import type { Op } from './history'

const broken = (h: ReturnType<typeof historyOf>) => [...new Set(check(h).violations.map((v) => v.promise))]
const tagged = (id: string, token: string): Partial<Op> => ({
  id,
  token,
  via: 'post',
  delayMs: 990,
  status: 201,
  answerRunAtMs: T0 + 1_000,
  tags: ['order:1'],
})
const tagCancel = (extra: Partial<Op>): Partial<Op> => ({
  kind: 'tag-cancel',
  id: 'order:1',
  invokeAt: T0 + 990,
  completeAt: T0 + 1_000,
  status: 200,
  ...extra,
})

describe('the checker on cancels by tag', () => {
  it('passes a cancel that counted the job being sent as in flight, and holds no other against the system', () => {
    const h = historyOf({
      ops: [tagged('j1', 'a'), tagged('j2', 'b'), tagged('j3', 'c'), tagCancel({ cancelled: 2, inFlight: 1 })],
      deliveries: [{ jobId: 'j1', token: 'a', sentAt: T0 + 1_005 }],
    })
    expect(check(h).violations).toEqual([])
    expect(check(h).figures['tag-cancel-holds'].checked).toBe(1)
  })

  it('catches a job of the tag that reaches SQS after the answer said none was in flight', () => {
    const h = historyOf({
      ops: [tagged('j1', 'a'), tagged('j2', 'b'), tagCancel({ cancelled: 1, inFlight: 0 })],
      deliveries: [{ jobId: 'j1', token: 'a', sentAt: T0 + 1_500 }],
    })
    expect(broken(h)).toEqual(['tag-cancel-holds'])
  })

  it('catches a job counted cancelled that was delivered all the same', () => {
    const h = historyOf({
      ops: [tagged('j1', 'a'), tagged('j2', 'b'), tagCancel({ cancelled: 2, inFlight: 0 })],
      deliveries: [{ jobId: 'j1', token: 'a', sentAt: T0 + 995 }],
    })
    expect(broken(h)).toEqual(['tag-cancel-holds'])
  })
})

describe('the checker on debounced writes', () => {
  const write = (n: number, at: number, status: number): Partial<Op> => ({
    kind: 'put',
    via: 'debounce',
    id: 'd.digest',
    token: `w${n}`,
    delayMs: 600,
    maxWaitMs: 2_000,
    invokeAt: at,
    completeAt: at + 5,
    status,
  })
  // writes every 300 ms from T0 to T0 + 3000: one version fires at maxWait (T0 + 2000), the last 600 ms after it
  const series = Array.from({ length: 11 }, (_, i) => write(i, T0 + i * 300, i === 7 ? 201 : i === 0 ? 201 : 200))

  it('passes a series that fires at maxWait, then after its last write', () => {
    const h = historyOf({
      ops: series,
      deliveries: [
        { jobId: 'd.digest', token: 'w6', sentAt: T0 + 2_002, createdAtMs: T0 },
        { jobId: 'd.digest', token: 'w10', sentAt: T0 + 3_601, createdAtMs: T0 + 2_100 },
      ],
    })
    expect(check(h).violations).toEqual([])
    expect(check(h).figures['debounce-quiet'].checked).toBe(2)
  })

  it('catches a version sent while writes still came, before maxWait had passed', () => {
    const h = historyOf({
      ops: series,
      deliveries: [
        { jobId: 'd.digest', token: 'w3', sentAt: T0 + 1_000, createdAtMs: T0 },
        { jobId: 'd.digest', token: 'w10', sentAt: T0 + 3_601, createdAtMs: T0 + 2_100 },
      ],
    })
    expect(broken(h)).toContain('debounce-quiet')
  })
})
