// The chaos checker on hand-made histories: one that keeps every promise passes, each broken promise is caught, and
// indeterminate writes (no answer, a 5xx) are never held against the system.
import { describe, expect, it } from 'vitest'
import { check, formatVerdict } from './checker'
import { created, historyOf, replaced, T0 } from './fixtures'
import type { Op } from './history'

const promisesBroken = (h: ReturnType<typeof historyOf>) => [...new Set(check(h).violations.map((v) => v.promise))]

describe('the chaos checker', () => {
  it('passes a history that keeps every promise', () => {
    const h = historyOf({
      ops: [
        created(),
        created({ id: 'job-2', token: 'b' }),
        { kind: 'cancel', id: 'job-2', invokeAt: T0 + 100, completeAt: T0 + 110, status: 204 },
        created({ id: 'job-3', token: 'c' }),
        replaced({ id: 'job-3', token: 'c2', answerRunAtMs: T0 + 3_000 }),
      ],
      deliveries: [{}, { jobId: 'job-3', token: 'c2', sentAt: T0 + 3_001 }],
    })
    const verdict = check(h)
    expect(verdict.violations).toEqual([])
    expect(verdict.figures['acknowledged-delivered'].checked).toBe(2)
    expect(verdict.figures['cancel-holds'].checked).toBe(1)
  })

  it('catches an acknowledged create that never reaches a consumer', () => {
    expect(promisesBroken(historyOf({ ops: [created()] }))).toEqual(['acknowledged-delivered'])
  })

  it('holds nothing against a create whose answer was lost, or whose later cancel was', () => {
    const lost = historyOf({ ops: [created({ outcome: 'unknown', status: undefined, answerRunAtMs: undefined })] })
    const cancelLost: Partial<Op> = { kind: 'cancel', invokeAt: T0 + 100, completeAt: T0 + 200, outcome: 'unknown' }
    expect(check(lost).valid).toBe(true)
    expect(check(historyOf({ ops: [created(), cancelLost] })).valid).toBe(true)
  })

  it('catches a delivery before the due time the answer named', () => {
    const h = historyOf({ ops: [created()], deliveries: [{ sentAt: T0 + 900 }] })
    expect(promisesBroken(h)).toEqual(['not-early'])
  })

  it('catches an early delivery of a write whose answer was lost, from the delay it asked for', () => {
    const h = historyOf({
      ops: [created({ outcome: 'unknown', answerRunAtMs: undefined, invokeAt: T0, delayMs: 5_000 })],
      deliveries: [{ sentAt: T0 + 4_000 }],
    })
    expect(promisesBroken(h)).toEqual(['not-early'])
  })

  it('catches a delivery after a cancel answered 204, and one before it of the version the cancel removed', () => {
    const cancel: Partial<Op> = { kind: 'cancel', invokeAt: T0 + 100, completeAt: T0 + 110, status: 204 }
    expect(promisesBroken(historyOf({ ops: [created(), cancel], deliveries: [{ sentAt: T0 + 1_000 }] }))).toEqual([
      'cancel-holds',
    ])
    const late = { ...cancel, invokeAt: T0 + 2_000, completeAt: T0 + 2_010 }
    expect(promisesBroken(historyOf({ ops: [created(), late], deliveries: [{ sentAt: T0 + 1_000 }] }))).toEqual([
      'cancel-holds',
    ])
  })

  it('lets a version delivered before a 204 cancel pass when an indeterminate write makes the removed version uncertain', () => {
    const h = historyOf({
      ops: [
        created(),
        { kind: 'put', token: 'a2', invokeAt: T0 + 1_500, completeAt: T0 + 1_600, outcome: 'unknown', delayMs: 5_000 },
        { kind: 'cancel', invokeAt: T0 + 2_000, completeAt: T0 + 2_010, status: 204 },
      ],
      deliveries: [{ sentAt: T0 + 1_000 }],
    })
    expect(check(h).valid).toBe(true)
  })

  it('catches a reschedule answered 200 whose old version is still delivered, or whose new one comes early', () => {
    const put = replaced({ delayMs: 4_900, answerRunAtMs: T0 + 5_000 })
    const oldDelivered = historyOf({
      ops: [created(), put],
      deliveries: [{ sentAt: T0 + 1_000 }, { token: 'a2', sentAt: T0 + 5_000 }],
    })
    expect(promisesBroken(oldDelivered)).toEqual(['reschedule-holds'])
    const early = historyOf({ ops: [created(), put], deliveries: [{ token: 'a2', sentAt: T0 + 1_000 }] })
    expect(promisesBroken(early)).toEqual(['not-early'])
  })

  it('holds a version sent before a retried replace answered 200 only to the answer (the retry may answer its own attempt)', () => {
    const put = (attempts: number) => replaced({ completeAt: T0 + 3_000, delayMs: 4_900, attempts })
    const deliveries = [{ sentAt: T0 + 1_000 }, { token: 'a2', sentAt: T0 + 5_000 }]
    expect(check(historyOf({ ops: [created(), put(3)], deliveries })).valid).toBe(true)
    expect(promisesBroken(historyOf({ ops: [created(), put(1)], deliveries }))).toEqual(['reschedule-holds'])
  })

  it('catches a reschedule answered 200 whose new version never arrives', () => {
    const put = replaced({ answerRunAtMs: T0 + 5_000 })
    expect(promisesBroken(historyOf({ ops: [created(), put] }))).toEqual(['acknowledged-delivered'])
  })

  it('catches a retried create that became two jobs', () => {
    const h = historyOf({
      ops: [created({ via: 'post-no-id', id: 'job-1' })],
      deliveries: [{}, { jobId: 'job-1b', sentAt: T0 + 1_001 }],
    })
    expect(promisesBroken(h)).toEqual(['create-once'])
  })

  it('catches a write applied twice: one version delivered with two creation times', () => {
    const h = historyOf({
      ops: [created({ kind: 'put', via: 'put' })],
      deliveries: [{ createdAtMs: T0 + 5 }, { createdAtMs: T0 + 300, sentAt: T0 + 1_300 }],
    })
    const kill = { kind: 'scanner-kill' as const, start: T0, end: T0 + 1 } // the duplicate itself is within its bound
    expect(promisesBroken({ ...h, faults: [kill] })).toEqual(['create-once'])
  })

  it('counts duplicate sends against the bound, and SQS redeliveries of one message apart', () => {
    const twice = [{}, {}, {}] // three sends of one version: two duplicates
    expect(promisesBroken(historyOf({ ops: [created()], deliveries: twice }))).toEqual(['duplicates-bounded'])
    const kill = { kind: 'scanner-kill' as const, start: T0, end: T0 + 1 }
    expect(check(historyOf({ ops: [created()], deliveries: twice, faults: [kill] })).valid).toBe(true)
    const redelivered = [{ messageId: 'm-x' }, { messageId: 'm-x', receiveCount: 2 }]
    const verdict = check(historyOf({ ops: [created()], deliveries: redelivered }))
    expect(verdict.valid).toBe(true)
    expect(verdict.figures['duplicates-bounded'].redeliveries).toBe(1)
  })

  it('allows one duplicate per job a scanner released after a send SQS may have taken, and not one more', () => {
    // prepare: 3 jobs released as maybe sent (2 in one dispatch, 1 in another), no injected fault
    const maybeSent = (count: number, at: number) => ({ kind: 'maybe-sent' as const, at, scanner: 's1', count })
    const environment = [maybeSent(2, T0 + 500), maybeSent(1, T0 + 900)]
    const sends = (n: number) => Array.from({ length: n }, (_, i) => ({ sentAt: T0 + 1_000 + i }))

    // act + assess: 3 duplicates (4 sends of one version) are within the bound, 4 are not
    const within = check(historyOf({ ops: [created()], deliveries: sends(4), environment }))
    expect(within.valid).toBe(true)
    expect(within.figures['duplicates-bounded']).toMatchObject({ duplicates: 3, bound: 3, unansweredSends: 3 })
    const over = historyOf({ ops: [created()], deliveries: sends(5), environment })
    expect(promisesBroken(over)).toEqual(['duplicates-bounded'])
    expect(formatVerdict(over, check(over))).toMatch(/environment: s1 maybe-sent 3/)
  })

  it('allows one duplicate per entry of a send attempt SQS may have taken, counted apart from the jobs released', () => {
    // prepare: the SDK's two attempts of one call timed out (5 entries each) and the call ended maybe sent, releasing
    // the same 5 jobs: 10 copies may be in SQS, which the larger of the two counts covers (not their sum, 15)
    const environment = [
      { kind: 'unanswered' as const, at: T0 + 400, scanner: 's1', count: 5 },
      { kind: 'unanswered' as const, at: T0 + 800, scanner: 's1', count: 5 },
      { kind: 'maybe-sent' as const, at: T0 + 800, scanner: 's1', count: 5 },
    ]
    const sends = (n: number) => Array.from({ length: n }, (_, i) => ({ sentAt: T0 + 1_000 + i }))

    // act + assess
    expect(check(historyOf({ ops: [created()], deliveries: sends(11), environment })).valid).toBe(true)
    expect(promisesBroken(historyOf({ ops: [created()], deliveries: sends(12), environment }))).toEqual([
      'duplicates-bounded',
    ])
  })

  it('prints the seed and the slice of the history that breaks a promise', () => {
    const h = historyOf({
      ops: [created(), created({ id: 'other', token: 'o' })],
      deliveries: [{ jobId: 'other', token: 'o' }],
    })
    const text = formatVerdict(h, check(h))
    expect(text).toContain('--seed 7')
    expect(text).toMatch(/VIOLATION acknowledged-delivered: job job-1/)
    expect(text).not.toMatch(/op #1 .* other/)
  })
})

describe('the chaos checker on recurring schedules', () => {
  const every = 1_000
  const put = (extra: Partial<Op> = {}): Partial<Op> => ({
    kind: 'sched-put',
    id: 's1',
    token: 's',
    everyMs: every,
    startAtMs: T0 + 1_000,
    invokeAt: T0,
    completeAt: T0 + 10,
    status: 201,
    ...extra,
  })
  const del: Partial<Op> = { kind: 'sched-delete', id: 's1', invokeAt: T0 + 9_500, completeAt: T0 + 9_510, status: 204 }
  const occurrence = (k: number, extra = {}) => ({
    jobId: `s1@${T0 + k * every}`,
    scheduleId: 's1',
    token: 's',
    occurrenceAtMs: T0 + k * every,
    sentAt: T0 + k * every + 3,
    ...extra,
  })
  const series = (ks: number[]) => ks.map((k) => occurrence(k))

  it('passes the exact series between its acknowledged writes', () => {
    expect(check(historyOf({ ops: [put(), del], deliveries: series([1, 2, 3, 4, 5, 6, 7, 8, 9]) })).violations).toEqual(
      [],
    )
  })

  it('catches a missing point with no fault to explain it', () => {
    expect(promisesBroken(historyOf({ ops: [put(), del], deliveries: series([1, 2, 4, 5, 6, 7, 8, 9]) }))).toEqual([
      'schedule-series',
    ])
  })

  it('lets a missed point pass when a fault explains the skip (missed occurrences fire once)', () => {
    const kill = { kind: 'scanner-kill' as const, start: T0 + 2_500, end: T0 + 2_600 }
    expect(
      check(historyOf({ ops: [put(), del], deliveries: series([1, 2, 4, 5, 6, 7, 8, 9]), faults: [kill] })).valid,
    ).toBe(true)
  })

  it('catches an occurrence off the series, and one after an acknowledged delete', () => {
    const off = historyOf({ ops: [put(), del], deliveries: [...series([1, 2, 3, 4, 5, 6, 7, 8, 9]), occurrence(2.5)] })
    expect(promisesBroken(off)).toEqual(['schedule-series'])
    const afterDelete = historyOf({ ops: [put(), del], deliveries: series([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]) })
    expect(promisesBroken(afterDelete)).toEqual(['schedule-series'])
  })

  it('catches an occurrence while paused, and passes the series again after the resume', () => {
    const pause: Partial<Op> = {
      kind: 'sched-pause',
      id: 's1',
      invokeAt: T0 + 2_500,
      completeAt: T0 + 2_510,
      status: 200,
    }
    const resume: Partial<Op> = {
      kind: 'sched-resume',
      id: 's1',
      invokeAt: T0 + 4_500,
      completeAt: T0 + 4_510,
      status: 200,
    }
    const ops = [put(), pause, resume, del]
    expect(check(historyOf({ ops, deliveries: series([1, 2, 5, 6, 7, 8, 9]) })).valid).toBe(true)
    expect(promisesBroken(historyOf({ ops, deliveries: series([1, 2, 3, 5, 6, 7, 8, 9]) }))).toEqual([
      'schedule-series',
    ])
  })

  it('catches an old version occurring after a replace was acknowledged', () => {
    const replace = put({
      token: 's2',
      invokeAt: T0 + 2_500,
      completeAt: T0 + 2_510,
      status: 200,
      startAtMs: T0 + 3_000,
    })
    const deliveries = [
      ...series([1, 2]),
      occurrence(3),
      ...[3, 4, 5, 6, 7, 8, 9].map((k) => occurrence(k, { token: 's2' })),
    ]
    expect(promisesBroken(historyOf({ ops: [put(), replace, del], deliveries }))).toEqual(['schedule-series'])
  })

  it('catches an occurrence before its time', () => {
    const h = historyOf({
      ops: [put(), del],
      deliveries: [...series([1, 2, 4, 5, 6, 7, 8, 9]), occurrence(3, { sentAt: T0 + 2_900 })],
    })
    expect(promisesBroken(h)).toEqual(['not-early'])
  })
})
