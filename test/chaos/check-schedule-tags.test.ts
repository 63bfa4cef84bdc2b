// The checker's promise for deletes of recurring schedules by tag, on hand-made histories: kept ones pass, broken ones
// are caught, and what a lost answer leaves open is not held against the system.
import { describe, expect, it } from 'vitest'
import { check } from './checker'
import { historyOf, T0 } from './fixtures'
import type { Delivery, Op } from './history'

const every = 1_000
const broken = (h: ReturnType<typeof historyOf>) => [...new Set(check(h).violations.map((v) => v.promise))]
const figures = (h: ReturnType<typeof historyOf>) => check(h).figures['schedule-tag-delete-holds']

/** A schedule with the tag plan:1, every second from T0 + 1000, written at T0 and answered at T0 + 10. */
const put = (sid: string, extra: Partial<Op> = {}): Partial<Op> => ({
  kind: 'sched-put',
  id: sid,
  token: `t-${sid}`,
  everyMs: every,
  startAtMs: T0 + 1_000,
  tags: ['plan:1'],
  status: 201,
  ...extra,
})
/** DELETE /schedules?tag=plan:1 called at T0 + 5995, answered done at T0 + 6005. */
const tagDelete = (extra: Partial<Op> = {}): Partial<Op> => ({
  kind: 'sched-tag-delete',
  id: 'plan:1',
  invokeAt: T0 + 5_995,
  completeAt: T0 + 6_005,
  status: 200,
  deleted: 1,
  done: true,
  ...extra,
})
const occurrences = (sid: string, ks: number[], token = `t-${sid}`): Partial<Delivery>[] =>
  ks.map((k) => ({
    jobId: `${sid}@${T0 + k * every}`,
    scheduleId: sid,
    token,
    occurrenceAtMs: T0 + k * every,
    sentAt: T0 + k * every + 3,
  }))

describe('the checker on deletes of recurring schedules by tag', () => {
  it('passes a series that stops at the answer, the occurrence a scanner held at the answer going out after it', () => {
    // the point at T0 + 6000 came due while the delete ran: sent at T0 + 6003, just before the answer, or later
    const held = occurrences('s1', [6]).map((d) => ({ ...d, sentAt: T0 + 6_400 }))
    const h = historyOf({ ops: [put('s1'), tagDelete()], deliveries: [...occurrences('s1', [1, 2, 3, 4, 5]), ...held] })
    expect(check(h).violations).toEqual([])
    expect(figures(h).checked).toBe(1)
  })

  it('catches an occurrence of a schedule that had the tag falling after the answer', () => {
    const h = historyOf({ ops: [put('s1'), tagDelete()], deliveries: occurrences('s1', [1, 2, 3, 4, 5, 6, 7]) })
    expect(broken(h)).toEqual(['schedule-tag-delete-holds'])
  })

  it('catches the tagged version a later replace kept the tag on, beside schedules of other tags left alone', () => {
    const replace = put('s1', { token: 't-s1.v2', invokeAt: T0 + 2_500, completeAt: T0 + 2_510, status: 200 })
    const other = put('s2', { tags: ['plan:2'] })
    const deleteOther: Partial<Op> = { kind: 'sched-delete', id: 's2', invokeAt: T0 + 9_500, completeAt: T0 + 9_510 }
    const h = historyOf({
      ops: [put('s1'), replace, other, tagDelete(), deleteOther],
      deliveries: [
        ...occurrences('s1', [1, 2]),
        ...occurrences('s1', [3, 4, 5, 6, 7], 't-s1.v2'),
        ...occurrences('s2', [1, 2, 3, 4, 5, 6, 7, 8, 9]),
      ],
    })
    expect(broken(h)).toEqual(['schedule-tag-delete-holds'])
    expect(check(h).violations.map((v) => v.ids[0])).toEqual(['s1'])
  })

  it('holds nothing against the system for a delete whose answer was lost, and judges its answered retry', () => {
    const lost = tagDelete({ outcome: 'unknown', done: undefined, deleted: undefined, status: undefined })
    const retry = tagDelete({ invokeAt: T0 + 8_995, completeAt: T0 + 9_005 })
    const goesOn = historyOf({ ops: [put('s1'), lost], deliveries: occurrences('s1', [1, 2, 3, 4, 5, 6, 7, 8]) })
    expect(check(goesOn).violations).toEqual([])
    expect(figures(goesOn)).toMatchObject({ checked: 0, indeterminate: 1 })
    const stopsAtRetry = historyOf({
      ops: [put('s1'), lost, retry],
      deliveries: occurrences('s1', [1, 2, 3, 4, 5, 6, 7, 8, 9]),
    })
    expect(check(stopsAtRetry).violations).toEqual([])
    const outlivesRetry = historyOf({
      ops: [put('s1'), lost, retry],
      deliveries: occurrences('s1', [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]),
    })
    expect(broken(outlivesRetry)).toEqual(['schedule-tag-delete-holds'])
  })

  it('does not judge a schedule given the tag after the call started, nor a tagged write whose answer was lost', () => {
    const during = put('s2', { invokeAt: T0 + 5_990, completeAt: T0 + 6_010 })
    const lostWrite = put('s3', { outcome: 'unknown', status: undefined })
    const h = historyOf({
      ops: [put('s1'), lostWrite, during, tagDelete()],
      deliveries: [
        ...occurrences('s1', [1, 2, 3, 4, 5, 6]),
        ...occurrences('s2', [7, 8, 9]),
        ...occurrences('s3', [1, 2, 3, 7, 8]),
      ],
    })
    expect(check(h).violations).toEqual([])
    expect(figures(h)).toMatchObject({ checked: 1, indeterminate: 2 })
  })

  it('still requires the points before the delete, and none after it', () => {
    const missing = historyOf({ ops: [put('s1'), tagDelete()], deliveries: occurrences('s1', [1, 3, 4, 5]) })
    expect(broken(missing)).toEqual(['schedule-series'])
    const stopped = historyOf({ ops: [put('s1'), tagDelete()], deliveries: occurrences('s1', [1, 2, 3]) })
    expect(check(stopped).violations).toEqual([])
  })
})
