// Flow control's promises (docs/flow-control.md), judged from the history alone:
// - paused-held: no job of a paused flow key reaches SQS while the key is paused: from the pause's answer (plus one
//   lease: a job already in a SendMessageBatch when the pause answered may still land, and a lane never starts a send
//   its lease would not outlast) until the resume was called. A pause whose answer was lost holds nothing against
//   the system; a resume whose answer was lost ends the pause when it was called.
// - rate-bounded: a limited key's jobs reach SQS no faster than burst + rate x span over any span, while the rate
//   holds (from the rate's answer on), with on each span the run's clock tolerance (SentTimestamp is SQS's clock; the
//   bucket runs on Redis's) and the time a token stays good (TOKEN_FRESH_MS: a send starts within it of its token, or
//   the job asks again). Except after an SQS fault: a SendMessageBatch call whose attempt failed is retried by the
//   SDK within the call, and the retries of several calls (their tokens each fresh when the call started) can land
//   together once SQS answers again; and a slow SQS stamps the sends it takes late with its late SentTimestamps, so
//   sends that left at the rate can carry one time. A span with an SQS fault in the lease before it or during it, or
//   with a send the scanners reported unanswered (a send still on its way when its timeout fired: SQS was slow) in the
//   lease before it, during it or the lease after it, is counted apart (excusedFault), as FIFO inversions after a
//   fault are. Only each job's first message counts: the copies a lost answer or a killed scanner
//   can add are what duplicates-bounded judges, and they are not a faster rate of jobs.
import { TOKEN_FRESH_MS } from '../../src/flow/flow-gate'
import { groupBy, type Delivery, type FlowOp, type History } from './history'
import type { PromiseFigures, Violation } from './violation'

export function checkFlow(h: History): {
  paused: { violations: Violation[]; figures: PromiseFigures }
  rate: { violations: Violation[]; figures: PromiseFigures }
} {
  const keyOf = new Map<string, string>()
  for (const op of h.ops) if (op.flowKey) keyOf.set(op.id, op.flowKey)
  const firsts = firstMessages(h.deliveries)
  const byKey = groupBy(firsts, (d) => keyOf.get(d.jobId))
  const flowOps = groupBy(h.flow ?? [], (op) => op.flowKey)
  return { paused: checkPaused(h, flowOps, byKey), rate: checkRate(h, flowOps, byKey) }
}

function checkPaused(h: History, flowOps: Map<string, FlowOp[]>, byKey: Map<string, Delivery[]>) {
  const figures: PromiseFigures = { checked: 0, violations: 0, indeterminate: 0, pauses: 0 }
  const violations: Violation[] = []
  for (const [key, ops] of flowOps) {
    for (const [i, pause] of ops.entries()) {
      if (pause.kind !== 'pause') continue
      if (pause.outcome !== 'ok') {
        figures.indeterminate!++
        continue
      }
      figures.pauses!++
      const resume = ops.slice(i + 1).find((op) => op.kind === 'resume')
      const from = pause.completeAt + h.settings.leaseMs
      const to = resume ? resume.invokeAt : h.endedAt
      for (const d of byKey.get(key) ?? []) {
        figures.checked++
        if (d.sentAt > from && d.sentAt < to) {
          violations.push({
            promise: 'paused-held',
            message: `job ${d.jobId} of flow key ${key} reached SQS at ${d.sentAt}, while the key was paused (${pause.completeAt}..${to})`,
            ids: [d.jobId],
          })
        }
      }
    }
  }
  return { violations, figures }
}

function checkRate(h: History, flowOps: Map<string, FlowOp[]>, byKey: Map<string, Delivery[]>) {
  const figures: PromiseFigures = { checked: 0, violations: 0, keys: 0, excusedFault: 0 }
  const violations: Violation[] = []
  // When SQS may have held sends back: its faults, and the sends the scanners saw go unanswered. An unanswered send is
  // reported when its timeout fires, up to a lease after it left (no send outlasts its lease): SQS was slow over all
  // of that, and the sends it took late meanwhile carry its late SentTimestamps, however evenly they left.
  const sqsTrouble = [
    ...h.faults.filter((f) => f.kind.startsWith('sqs-')).map((f) => [f.start, f.end] as const),
    ...(h.environment ?? [])
      .filter((e) => e.kind === 'unanswered')
      .map((e) => [e.at - h.settings.leaseMs, e.at] as const),
  ]
  const troubled = (from: number, to: number) =>
    sqsTrouble.some(([start, end]) => start <= to && end >= from - h.settings.leaseMs)
  for (const [key, ops] of flowOps) {
    // The rate set last with an answer, and from when; a key whose rate changed later is judged up to the change.
    const rates = ops.filter((op) => op.kind === 'rate' && op.outcome === 'ok' && op.rate)
    for (const [i, set] of rates.entries()) {
      const until = rates[i + 1]?.invokeAt ?? Number.POSITIVE_INFINITY
      const sends = (byKey.get(key) ?? [])
        .filter((d) => d.sentAt > set.completeAt && d.sentAt < until)
        .sort((a, b) => a.sentAt - b.sentAt)
      figures.keys!++
      figures.checked += sends.length
      const worst = worstSpan(sends, set.rate!, set.burst ?? 1, h.settings.toleranceMs + TOKEN_FRESH_MS, troubled)
      if (worst?.excused) figures.excusedFault!++
      else if (worst) {
        violations.push({
          promise: 'rate-bounded',
          message: `flow key ${key} limited to ${set.rate}/s (burst ${set.burst ?? 1}): ${worst.count} jobs reached SQS within ${worst.spanMs} ms`,
          ids: worst.ids,
        })
      }
    }
  }
  return { violations, figures }
}

/**
 * The span of sends most over burst + rate x (span + tolerance), if any is over: the worst one SQS trouble does not
 * explain, else the worst one (excused).
 */
function worstSpan(
  sends: readonly Delivery[],
  rate: number,
  burst: number,
  toleranceMs: number,
  troubled: (from: number, to: number) => boolean,
) {
  let worst: { excess: number; count: number; spanMs: number; ids: string[]; excused: boolean } | undefined
  for (let i = 0; i < sends.length; i++) {
    for (let j = i; j < sends.length; j++) {
      const spanMs = sends[j]!.sentAt - sends[i]!.sentAt
      // Spans past 10 s: a burst that breaks the promise breaks it in a shorter span too.
      if (spanMs > 10_000) break
      const excess = j - i + 1 - (burst + (rate * (spanMs + toleranceMs)) / 1000)
      if (excess <= 0) continue
      const excused = troubled(sends[i]!.sentAt, sends[j]!.sentAt)
      // An unexcused span outranks every excused one.
      if (!worst || (worst.excused && !excused) || (worst.excused === excused && excess > worst.excess)) {
        worst = { excess, count: j - i + 1, spanMs, ids: sends.slice(i, j + 1).map((d) => d.jobId), excused }
      }
    }
  }
  return worst
}

/** Each job's first message SQS took (by SentTimestamp). */
function firstMessages(deliveries: readonly Delivery[]): Delivery[] {
  const first = new Map<string, Delivery>()
  for (const d of deliveries) {
    const seen = first.get(d.jobId)
    if (!seen || d.sentAt < seen.sentAt) first.set(d.jobId, d)
  }
  return [...first.values()]
}
