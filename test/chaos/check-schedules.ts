// Per recurring schedule (everyMs from an explicit startAt, so the series is known from the request): every
// occurrence delivered is a point of the series of a version the client wrote, falls where that version was in force
// (not after an acknowledged pause, delete or replace), and every point of an acknowledged version's series reaches a
// consumer, unless a fault near it explains a skip ("missed occurrences fire once": a late acknowledgement moves the
// successor past the points that passed meanwhile).
import { taggedVersions } from './check-schedule-tags'
import { groupBy, type Delivery, type Fault, type History, type Op } from './history'
import type { PromiseFigures, Violation } from './violation'

/** How long before the next operation on a schedule a point may still be on its way (not required to arrive). */
export const IN_FLIGHT_GRACE_MS = 3_000

interface Span {
  token: string
  from: number
  to: number
}

export function checkSchedules(h: History): { violations: Violation[]; figures: PromiseFigures } {
  const figures: PromiseFigures = { checked: 0, indeterminate: 0, violations: 0, occurrences: 0, skipsExcused: 0 }
  const violations: Violation[] = []
  const deliveries = groupBy(
    h.deliveries.filter((d) => d.scheduleId),
    (d) => d.scheduleId,
  )
  const ops = groupBy(
    h.ops.filter((op) => op.kind.startsWith('sched-') && op.kind !== 'sched-tag-delete'),
    (op) => op.id,
  )
  for (const [sid, ends] of tagDeleteEnds(h.ops)) ops.get(sid)?.push(...ends)
  for (const [sid, list] of ops) {
    list.sort((a, b) => a.n - b.n)
    const { permits, spans, puts } = timeline(h, list)
    const ds = deliveries.get(sid) ?? []
    const fail = (message: string) => {
      figures.violations++
      violations.push({ promise: 'schedule-series', message: `schedule ${sid}: ${message}`, ids: [sid] })
    }
    for (const d of ds) {
      figures.occurrences!++
      const put = d.token ? puts.get(d.token) : undefined
      const at = d.occurrenceAtMs!
      if (!put) {
        fail(`occurrence ${d.jobId} carries no version the client wrote (token ${d.token})`)
        continue
      }
      if (at < put.startAtMs! || (at - put.startAtMs!) % put.everyMs! !== 0)
        fail(
          `occurrence ${d.jobId} is not a point of op #${put.n}'s series (start ${put.startAtMs}, every ${put.everyMs} ms)`,
        )
      if (d.sentAt < at - h.settings.toleranceMs) {
        figures.violations++
        violations.push({
          promise: 'not-early',
          message: `schedule ${sid}: occurrence ${d.jobId} reached SQS at ${d.sentAt}, ${at - d.sentAt} ms early`,
          ids: [sid],
        })
      }
      const inForce = (permits.get(d.token!) ?? []).some(
        ([from, to]) => at >= from && at <= to + h.settings.toleranceMs,
      )
      if (!inForce)
        fail(
          `occurrence ${d.jobId} (version of op #${put.n}) falls where that version was not in force (after an acknowledged pause, delete or replace)`,
        )
    }
    for (const span of spans) requiredPoints(h, span, puts.get(span.token)!, ds, figures, fail)
  }
  return { violations, figures }
}

/** Where each version was in force ([from, to]: from its write's call to the answer of what ended it), and the spans
 * in which an acknowledged, unpaused version was certainly the one in force (from its answer to the next operation). */
function timeline(h: History, ops: Op[]) {
  const permits = new Map<string, [number, number][]>()
  const open = new Map<string, number>()
  const puts = new Map<string, Op>()
  const spans: Span[] = []
  let span: Omit<Span, 'to'> | undefined
  let current: string[] = []
  const close = (at: number) => {
    for (const [t, from] of open) permits.set(t, [...(permits.get(t) ?? []), [from, at]])
    open.clear()
  }
  const reopen = (tokens: string[], at: number) => {
    for (const t of tokens) if (!open.has(t)) open.set(t, at)
  }
  for (const op of ops) {
    if (span) spans.push({ ...span, to: op.invokeAt })
    span = undefined
    if (op.outcome === 'fail') continue
    const ok = op.outcome === 'ok'
    if (op.kind === 'sched-put') {
      puts.set(op.token!, op)
      if (ok) {
        close(op.completeAt)
        current = [op.token!]
        span = { token: op.token!, from: op.completeAt }
      } else current.push(op.token!)
      reopen([op.token!], op.invokeAt)
    } else if (op.kind === 'sched-resume') {
      reopen(current, op.invokeAt)
      const only = current.length === 1 ? puts.get(current[0]!) : undefined
      if (ok && only?.outcome === 'ok') span = { token: only.token!, from: op.completeAt }
    } else if (ok) close(op.completeAt) // an acknowledged pause or delete
  }
  close(Number.POSITIVE_INFINITY)
  if (span) spans.push({ ...span, to: h.endedAt })
  return { permits, spans, puts }
}

function requiredPoints(
  h: History,
  span: Span,
  put: Op,
  ds: Delivery[],
  figures: PromiseFigures,
  fail: (message: string) => void,
) {
  const every = put.everyMs!
  const start = put.startAtMs!
  const last = Math.min(span.to - IN_FLIGHT_GRACE_MS, h.endedAt - h.settings.leaseMs)
  const first = Math.max(start, span.from + h.settings.toleranceMs)
  const mine = ds.filter((d) => d.token === span.token)
  const seen = new Set(mine.map((d) => d.occurrenceAtMs))
  for (let at = start + Math.ceil((first - start) / every) * every; at <= last; at += every) {
    figures.checked++
    if (seen.has(at)) continue
    if (faultNear(h.faults, at - every - IN_FLIGHT_GRACE_MS, at + IN_FLIGHT_GRACE_MS)) {
      figures.skipsExcused!++
      continue
    }
    const lateBefore = mine.some((d) => d.occurrenceAtMs! < at && d.sentAt >= at - h.settings.toleranceMs)
    if (lateBefore) {
      figures.skipsExcused!++
      continue
    }
    fail(
      `the point ${at} of op #${put.n}'s series (in force from ${span.from} to ${span.to}) never reached a consumer, and no fault or late occurrence explains a skip`,
    )
  }
}

const faultNear = (faults: Fault[], from: number, to: number) => faults.some((f) => f.start <= to && f.end >= from)

/**
 * A delete by tag, for each schedule it may have deleted: an operation whose outcome is left open. It ends the span in
 * which points are required; whether it removed the schedule and when is schedule-tag-delete-holds' to judge.
 */
function tagDeleteEnds(ops: readonly Op[]): Map<string, Op[]> {
  const ends = new Map<string, Op[]>()
  for (const del of ops.filter((op) => op.kind === 'sched-tag-delete' && op.outcome !== 'fail')) {
    for (const sid of new Set(taggedVersions(ops, del).map((v) => v.id)))
      ends.set(sid, [...(ends.get(sid) ?? []), { ...del, kind: 'sched-delete', id: sid, outcome: 'unknown' }])
  }
  return ends
}
