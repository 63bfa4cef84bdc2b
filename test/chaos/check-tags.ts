// The promises of cancel by tag and of debounced writes (test/chaos/tag-lanes.ts).
//
// tag-cancel-holds: a cancel by tag answered 200 with `cancelled` and `inFlight`: of the tag's jobs, at most `inFlight`
// reach SQS after the answer; and per tag, the jobs delivered plus the jobs answered cancelled never outnumber the
// jobs written with it (a job counted cancelled and delivered too would).
// debounce-quiet: a debounced version reaches SQS no earlier than its quiet period (its write + the period), unless
// maxWaitMs has passed since its incarnation's first write: what "once per quiet period" means in time. The first
// write is taken from the history, not from the engine: the earliest write that may have landed after the previous
// version went to SQS (an earlier bound than the true one, so that it can hold nothing against the engine).
import { groupBy, type Delivery, type History, type Op } from './history'
import type { PromiseFigures, Violation } from './violation'

export interface TagChecks {
  violations: Violation[]
  figures: Record<'tag-cancel-holds' | 'debounce-quiet', PromiseFigures>
}

export function checkTags(h: History): TagChecks {
  const out: TagChecks = {
    violations: [],
    figures: {
      'tag-cancel-holds': { checked: 0, violations: 0 },
      'debounce-quiet': { checked: 0, violations: 0 },
    },
  }
  tagCancelHolds(h, out)
  debounceQuiet(h, out)
  return out
}

/** A job's earliest time in SQS, by id. */
function firstSent(deliveries: Delivery[]): Map<string, number> {
  const at = new Map<string, number>()
  for (const d of deliveries) if (!d.scheduleId) at.set(d.jobId, Math.min(at.get(d.jobId) ?? Infinity, d.sentAt))
  return at
}

function tagCancelHolds(h: History, out: TagChecks) {
  const f = out.figures['tag-cancel-holds']
  const tagged = h.ops.filter((op) => op.tags?.length && op.outcome !== 'fail')
  const sent = firstSent(h.deliveries)
  const lastSent = new Map<string, number>()
  for (const d of h.deliveries) lastSent.set(d.jobId, Math.max(lastSent.get(d.jobId) ?? 0, d.sentAt))
  const cancels = groupBy(
    h.ops.filter((op) => op.kind === 'tag-cancel'),
    (op) => op.id,
  )
  for (const [tag, ops] of cancels) {
    const ids = [...new Set(tagged.filter((w) => w.tags!.includes(tag)).map((w) => w.id))]
    let cancelled = 0
    for (const c of ops) {
      if (c.outcome !== 'ok') continue
      f.checked++
      cancelled += c.cancelled ?? 0
      const after = ids.filter((id) => (lastSent.get(id) ?? 0) > c.completeAt + h.settings.toleranceMs)
      if (after.length <= (c.inFlight ?? 0)) continue
      f.violations++
      out.violations.push({
        promise: 'tag-cancel-holds',
        message: `tag ${tag}: op #${c.n} answered at ${c.completeAt} (cancelled ${c.cancelled}, in flight ${c.inFlight}), yet ${after.length} of its jobs reached SQS after the answer: ${after.join(', ')}`,
        ids: [tag, ...after],
      })
    }
    const delivered = ids.filter((id) => sent.has(id))
    if (delivered.length + cancelled <= ids.length) continue
    f.violations++
    out.violations.push({
      promise: 'tag-cancel-holds',
      message: `tag ${tag}: ${ids.length} jobs written, ${cancelled} answered cancelled, yet ${delivered.length} delivered: a cancelled job reached SQS`,
      ids: [tag, ...ids],
    })
  }
}

function debounceQuiet(h: History, out: TagChecks) {
  const f = out.figures['debounce-quiet']
  const writes = h.ops.filter((op) => op.via === 'debounce' && op.outcome !== 'fail')
  for (const [id, ws] of groupBy(writes, (op) => op.id)) {
    const byToken = new Map(ws.map((w) => [w.token, w] as const))
    // Each version's first delivery, in the order they reached SQS.
    const firsts = new Map<string, Delivery>()
    for (const d of h.deliveries) {
      if (d.jobId !== id || !d.token) continue
      const seen = firsts.get(d.token)
      if (!seen || d.sentAt < seen.sentAt) firsts.set(d.token, d)
    }
    let previous = -Infinity
    for (const d of [...firsts.values()].sort((a, b) => a.sentAt - b.sentAt)) {
      const w = byToken.get(d.token!)
      if (!w) continue
      const anchor = Math.min(...ws.filter((x) => x.completeAt > previous).map((x) => x.invokeAt))
      const bound = Math.min(w.invokeAt + (w.delayMs ?? 0), anchor + (w.maxWaitMs ?? 0))
      previous = d.sentAt
      f.checked++
      if (d.sentAt >= bound - h.settings.toleranceMs) continue
      f.violations++
      out.violations.push({
        promise: 'debounce-quiet',
        message: `job ${id}: the version of op #${w.n} reached SQS at ${d.sentAt}, ${bound - d.sentAt} ms before its quiet period ended (its write + ${w.delayMs} ms) or ${w.maxWaitMs} ms had passed since its first write`,
        ids: [id],
      })
    }
  }
}

/** Whether a later cancel by one of the write's tags may have removed it (checked by tag-cancel-holds instead). */
export function removedByTag(w: Op, ops: readonly Op[]): boolean {
  if (!w.tags?.length) return false
  return ops.some((c) => c.kind === 'tag-cancel' && c.outcome !== 'fail' && w.tags!.includes(c.id) && c.n > w.n)
}
