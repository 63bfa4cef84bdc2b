// Flow control's promises (docs/flow-control.md), judged from the history alone:
// - paused-held: no job of a paused flow key reaches SQS while the key is paused: from the pause's answer (plus one
//   lease: a job already in a SendMessageBatch when the pause answered may still land, and a lane never starts a send
//   its lease would not outlast) until the resume was called. A pause whose answer was lost holds nothing against
//   the system; a resume whose answer was lost ends the pause when it was called.
// - rate-bounded: a limited key's sends START no faster than burst + rate x span over any span, while the rate holds
//   (from the rate's answer on), with on each span the run's clock tolerance and the time a token stays good
//   (TOKEN_FRESH_MS: a send starts within it of its token, or the job asks again). Judged where the scanners say each
//   job's SendMessageBatch started (history.sendStarts): that is what the token bucket orders; where SQS stamps the
//   messages also depends on how fast SQS takes them, and a slow SQS (a loaded machine, its faults, the SDK's retries
//   within a call) stamps sends that left at the rate together. A span with a scanner paused (SIGSTOP) in the lease
//   before it or during it is counted apart (excusedFault): a scanner frozen between its token's check and its
//   request's start starts late. The same spans judged where SQS took the messages are reported (overAtAccept: keys
//   over there), not judged. A history without send starts (saved before they were recorded) is judged at SQS
//   accept, with SQS trouble (its faults, sends reported unanswered) as the excuse. Only each job's first message
//   or send counts: the copies a lost answer or a killed scanner can add are what duplicates-bounded judges, and they
//   are not a faster rate of jobs.
import { TOKEN_FRESH_MS } from '../../src/flow/flow-gate'
import { groupBy, type Delivery, type FlowOp, type History, type SendStart } from './history'
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
  const lease = h.settings.leaseMs
  const overlaps = (spans: (readonly [number, number])[]) => (from: number, to: number) =>
    spans.some(([start, end]) => start <= to && end >= from - lease)
  // When SQS may have held sends back: its faults, and the sends the scanners saw go unanswered. An unanswered send is
  // reported when its timeout fires, up to a lease after it left (no send outlasts its lease): SQS was slow over all
  // of that, and the sends it took late meanwhile carry its late SentTimestamps, however evenly they left.
  const sqsTrouble = overlaps([
    ...h.faults.filter((f) => f.kind.startsWith('sqs-')).map((f) => [f.start, f.end] as const),
    ...(h.environment ?? []).filter((e) => e.kind === 'unanswered').map((e) => [e.at - lease, e.at] as const),
  ])
  const frozen = overlaps(h.faults.filter((f) => f.kind === 'scanner-pause').map((f) => [f.start, f.end] as const))
  const starts = h.sendStarts ? firstStarts(h.sendStarts) : undefined
  if (starts) figures.overAtAccept = 0
  const tolerance = h.settings.toleranceMs + TOKEN_FRESH_MS
  for (const [key, ops] of flowOps) {
    // The rate set last with an answer, and from when; a key whose rate changed later is judged up to the change.
    const rates = ops.filter((op) => op.kind === 'rate' && op.outcome === 'ok' && op.rate)
    for (const [i, set] of rates.entries()) {
      const until = rates[i + 1]?.invokeAt ?? Number.POSITIVE_INFINITY
      const within = (at: number) => at > set.completeAt && at < until
      const accepted = (byKey.get(key) ?? []).map((d) => ({ jobId: d.jobId, at: d.sentAt })).filter((t) => within(t.at))
      const judged = starts
        ? accepted.flatMap(({ jobId }) => (starts.has(jobId) ? [{ jobId, at: starts.get(jobId)! }] : []))
        : accepted
      const sends = judged.filter((t) => within(t.at)).sort((a, b) => a.at - b.at)
      figures.keys!++
      figures.checked += sends.length
      const worst = worstSpan(sends, set.rate!, set.burst ?? 1, tolerance, starts ? frozen : sqsTrouble)
      if (starts) {
        // Sends SQS took with no start line: their scanner died between SQS's answer and its report.
        figures.unstarted = (figures.unstarted ?? 0) + accepted.filter((t) => !starts.has(t.jobId)).length
        const atAccept = worstSpan(
          accepted.sort((a, b) => a.at - b.at),
          set.rate!,
          set.burst ?? 1,
          tolerance,
          () => false,
        )
        if (atAccept) figures.overAtAccept!++
      }
      if (worst?.excused) figures.excusedFault!++
      else if (worst) {
        violations.push({
          promise: 'rate-bounded',
          message: `flow key ${key} limited to ${set.rate}/s (burst ${set.burst ?? 1}): ${worst.count} jobs ${starts ? 'started their sends' : 'reached SQS'} within ${worst.spanMs} ms`,
          ids: worst.ids,
        })
      }
    }
  }
  return { violations, figures }
}

/** Each job's earliest send start. */
function firstStarts(starts: readonly SendStart[]): Map<string, number> {
  const first = new Map<string, number>()
  for (const { jobId, at } of starts) {
    const seen = first.get(jobId)
    if (seen === undefined || at < seen) first.set(jobId, at)
  }
  return first
}

/**
 * The span of sends most over burst + rate x (span + tolerance), if any is over: the worst one SQS trouble does not
 * explain, else the worst one (excused).
 */
function worstSpan(
  sends: readonly { jobId: string; at: number }[],
  rate: number,
  burst: number,
  toleranceMs: number,
  troubled: (from: number, to: number) => boolean,
) {
  let worst: { excess: number; count: number; spanMs: number; ids: string[]; excused: boolean } | undefined
  for (let i = 0; i < sends.length; i++) {
    for (let j = i; j < sends.length; j++) {
      const spanMs = sends[j]!.at - sends[i]!.at
      // Spans past 10 s: a burst that breaks the promise breaks it in a shorter span too.
      if (spanMs > 10_000) break
      const excess = j - i + 1 - (burst + (rate * (spanMs + toleranceMs)) / 1000)
      if (excess <= 0) continue
      const excused = troubled(sends[i]!.at, sends[j]!.at)
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
