// Per job id, the promises of one-off jobs. Each id is written by one client lane at a time, so its operations are a
// sequence (invoke order); the checker still treats an unknown outcome as "may or may not have happened".
import { groupBy, isJobWrite, type Delivery, type History, type Op } from './history'
import { removedByTag } from './check-tags'
import type { PromiseFigures, Violation } from './violation'

export interface JobChecks {
  violations: Violation[]
  figures: Record<
    'acknowledged-delivered' | 'not-early' | 'cancel-holds' | 'reschedule-holds' | 'create-once',
    PromiseFigures
  >
}

const fig = (): PromiseFigures => ({ checked: 0, indeterminate: 0, violations: 0 })

export function checkJobs(h: History): JobChecks {
  const out: JobChecks = {
    violations: [],
    figures: {
      'acknowledged-delivered': fig(),
      'not-early': fig(),
      'cancel-holds': fig(),
      'reschedule-holds': fig(),
      'create-once': fig(),
    },
  }
  const jobOps = h.ops.filter((op) => op.kind === 'create' || op.kind === 'put' || op.kind === 'cancel')
  const byToken = groupBy(
    h.deliveries.filter((d) => !d.scheduleId),
    (d) => d.token,
  )
  for (const [id, ops] of groupBy(jobOps, (op) => op.id)) {
    ops.sort((a, b) => a.n - b.n)
    acknowledgedDelivered(h, id, ops, byToken, out)
    removalsHold(h, id, ops, byToken, out)
  }
  notEarly(h, jobOps, out)
  createdOnce(jobOps, byToken, out)
  return out
}

/** The answer's runAt; without one (a batch result, an indeterminate write), the earliest the write can have asked. */
export const earliestDue = (w: Op): number =>
  w.outcome === 'ok' && w.answerRunAtMs !== undefined ? w.answerRunAtMs : (w.runAtMs ?? w.invokeAt + (w.delayMs ?? 0))

/** The distinct creation times the deliveries of one token show. */
export const creations = (ds: Delivery[]) => [...new Set(ds.map((d) => d.createdAtMs).filter((t) => t !== undefined))]

const delivered = (byToken: Map<string, Delivery[]>, op: Op) => (op.token ? (byToken.get(op.token) ?? []) : [])

/** An acknowledged write reaches a consumer unless a later acknowledged cancel (204) or replace (200) removed it. */
function acknowledgedDelivered(h: History, id: string, ops: Op[], byToken: Map<string, Delivery[]>, out: JobChecks) {
  const f = out.figures['acknowledged-delivered']
  ops.forEach((w, i) => {
    if (!isJobWrite(w) || w.outcome !== 'ok') return
    const later = ops.slice(i + 1)
    if (later.some((op) => op.outcome === 'ok' && (op.kind === 'cancel' || (op.kind === 'put' && op.status === 200))))
      return // removed on purpose: the removal promises check it
    if (removedByTag(w, h.ops)) return // tag-cancel-holds checks it
    if (later.some((op) => op.outcome === 'unknown')) {
      f.indeterminate!++ // a later write or cancel may have removed it
      return
    }
    if (earliestDue(w) > h.endedAt - h.settings.leaseMs) return // due too late for this run to see
    f.checked++
    if (delivered(byToken, w).length > 0) return
    f.violations++
    out.violations.push({
      promise: 'acknowledged-delivered',
      message: `job ${id}: op #${w.n} (${w.kind}, answered ${w.status} at ${w.completeAt}, due ${w.answerRunAtMs}) was acknowledged and never delivered, and nothing acknowledged removed it`,
      ids: [id],
    })
  })
}

/**
 * A cancel answered 204 or a replace answered 200: the version(s) it removed are never delivered after its answer;
 * when which version it removed is certain (no indeterminate write since the last acknowledged one), that version is
 * never delivered at all (a version in SQS already makes the engine answer 404 or 409, never 204 / 200).
 */
function removalsHold(h: History, id: string, ops: Op[], byToken: Map<string, Delivery[]>, out: JobChecks) {
  ops.forEach((r, i) => {
    const isCancel = r.kind === 'cancel' && r.outcome === 'ok'
    const isReplace = r.kind === 'put' && r.outcome === 'ok' && r.status === 200
    if (!isCancel && !isReplace) return
    const promise = isCancel ? 'cancel-holds' : 'reschedule-holds'
    const f = out.figures[promise]
    f.checked++
    const candidates: Op[] = []
    for (let j = i - 1; j >= 0; j--) {
      const w = ops[j]!
      if (!isJobWrite(w) || w.outcome === 'fail') continue
      candidates.push(w)
      if (w.outcome === 'ok') break
    }
    // Certain which version it removed: one acknowledged write since the last, and the removal applied once (a
    // request the client sent again may be answering its own earlier attempt, which already removed that version).
    // The write must have been sent once too: a retried write may have made its version twice.
    const certain =
      candidates.length === 1 &&
      candidates[0]!.outcome === 'ok' &&
      (r.attempts ?? 1) === 1 &&
      (candidates[0]!.attempts ?? 1) === 1 &&
      candidates[0]!.retryOf === undefined
    if (!certain) f.indeterminate!++
    for (const w of candidates) {
      const ds = delivered(byToken, w)
      // A version applied twice (create-once reports it) may have gone out before the removal, its copy removed.
      const single = creations(ds).length <= 1
      for (const d of ds) {
        const after = d.sentAt > r.completeAt + h.settings.toleranceMs
        if (!after && !(certain && single)) continue
        f.violations++
        out.violations.push({
          promise,
          message: `job ${id}: op #${r.n} (${r.kind}) answered ${r.status} at ${r.completeAt}, yet the version of op #${w.n} reached SQS at ${d.sentAt} (message ${d.messageId}, ${after ? 'after the answer' : 'before it: the removal should have answered 404/409'})`,
          ids: [id],
        })
      }
    }
  })
}

/**
 * No delivery reaches SQS before its due time. The bound is what the request asked, on the clock at its call: an
 * absolute runAt, or the call's start plus delayMs. (Not the answer's runAt: a request the client sent again may have
 * been applied by an earlier attempt, whose due time is earlier than the one the last attempt answered.)
 */
function notEarly(h: History, ops: Op[], out: JobChecks) {
  const f = out.figures['not-early']
  // A user's retry shares its first attempt's token: the bound is the first call's.
  const writes = new Map<string, Op>()
  for (const op of ops) if (isJobWrite(op) && op.token && !writes.has(op.token)) writes.set(op.token, op)
  for (const d of h.deliveries) {
    if (d.scheduleId) continue
    const w = d.token ? writes.get(d.token) : undefined
    // A debounced version may fire before its write's delay (maxWaitMs): debounce-quiet holds it to that bound.
    if (!w || w.via === 'debounce') continue
    const due = w.runAtMs ?? w.invokeAt + (w.delayMs ?? 0)
    f.checked++
    if (d.sentAt >= due - h.settings.toleranceMs) continue
    f.violations++
    out.violations.push({
      promise: 'not-early',
      message: `job ${d.jobId}: reached SQS at ${d.sentAt}, ${due - d.sentAt} ms before the earliest due time ${due} op #${w.n} asked for`,
      ids: [d.jobId],
    })
  }
}

/**
 * A write (retried by the client or not) makes one job: all deliveries of its token carry one job id, its own, and
 * one creation time (two mean the request was applied twice: a retry after the first attempt's job had gone to SQS).
 */
function createdOnce(ops: Op[], byToken: Map<string, Delivery[]>, out: JobChecks) {
  const f = out.figures['create-once']
  const seen = new Set<string>()
  for (const w of ops) {
    if (!isJobWrite(w) || !w.token || seen.has(w.token)) continue
    seen.add(w.token)
    const ds = byToken.get(w.token) ?? []
    if (ds.length === 0) continue
    f.checked++
    const created = creations(ds)
    if (created.length > 1) {
      f.violations++
      out.violations.push({
        promise: 'create-once',
        message: `op #${w.n} (${w.kind} ${w.via ?? ''} of ${w.id}, ${w.outcome} ${w.status ?? ''}) was applied ${created.length} times: deliveries of its version show creation times ${created.join(', ')}`,
        ids: [w.id],
      })
      continue
    }
    if (w.kind !== 'create') continue
    const ids = [...new Set(ds.map((d) => d.jobId))]
    // A create without an id whose answer was lost does not know its id: one job is all it may have made.
    if (ids.length === 1 && (ids[0] === w.id || w.id.startsWith('?'))) continue
    f.violations++
    out.violations.push({
      promise: 'create-once',
      message: `op #${w.n} (create ${w.via}, id ${w.id}) became ${ids.length} job(s): ${ids.join(', ')}`,
      ids: [w.id, ...ids.filter((x) => x !== w.id)],
    })
  }
}
