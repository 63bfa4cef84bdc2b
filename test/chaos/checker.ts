// The checker: reads a history (test/chaos/history.ts) and reports, per promise, how many cases it checked, how
// many were left open by indeterminate writes, and every violation with the slice of the history that shows it.
import { checkDuplicates } from './check-duplicates'
import { checkFifo } from './check-fifo'
import { checkFlow } from './check-flow'
import { checkJobs } from './check-jobs'
import { checkScheduleTagDeletes } from './check-schedule-tags'
import { checkSchedules } from './check-schedules'
import { checkTags } from './check-tags'
import type { Delivery, EnvironmentFault, Fault, History, Op } from './history'
import { PROMISES, type PromiseName, type PromiseFigures, type Violation } from './violation'

export interface Verdict {
  seed: number
  valid: boolean
  figures: Record<PromiseName, PromiseFigures>
  violations: Violation[]
}

export function check(input: History): Verdict {
  const h = { ...input, ops: input.ops.map(definite) }
  const jobs = checkJobs(h)
  const schedules = checkSchedules(h)
  const scheduleTags = checkScheduleTagDeletes(h)
  const fifo = checkFifo(h)
  const duplicates = checkDuplicates(h)
  const tags = checkTags(h)
  const flow = checkFlow(h)
  const violations = [
    ...jobs.violations,
    ...tags.violations,
    ...schedules.violations,
    ...scheduleTags.violations,
    ...fifo.violations,
    ...duplicates.violations,
    ...flow.paused.violations,
    ...flow.rate.violations,
  ]
  const figures = {
    ...jobs.figures,
    ...tags.figures,
    'schedule-series': schedules.figures,
    'schedule-tag-delete-holds': scheduleTags.figures,
    'fifo-order': fifo.figures,
    'duplicates-bounded': duplicates.figures,
    'paused-held': flow.paused.figures,
    'rate-bounded': flow.rate.figures,
  } as Record<PromiseName, PromiseFigures>
  // A violation's count lands on its own promise (the schedule check also reports early occurrences).
  for (const p of PROMISES) figures[p].violations = violations.filter((v) => v.promise === p).length
  return { seed: h.seed, valid: violations.length === 0, figures, violations }
}

/**
 * A refusal (4xx) is definite only for the attempt that got it: after the client's own retries, an earlier attempt
 * answered 5xx or nothing and may have landed (a retried cancel answers 404 for its own earlier attempt's cancel).
 */
function definite(op: Op): Op {
  return op.outcome === 'fail' && (op.attempts ?? 1) > 1 ? { ...op, outcome: 'unknown' } : op
}

export interface Slice {
  ops: Op[]
  deliveries: Delivery[]
  faults: Fault[]
  environment: EnvironmentFault[]
}

/** The part of the history a violation is about: its ids' operations and deliveries, and the faults around them. */
export function sliceFor(h: History, v: Violation): Slice {
  const ids = new Set(v.ids)
  const ops = h.ops.filter((op) => ids.has(op.id))
  const deliveries = h.deliveries.filter((d) => ids.has(d.jobId) || (d.scheduleId && ids.has(d.scheduleId)))
  const times = [...ops.flatMap((op) => [op.invokeAt, op.completeAt]), ...deliveries.map((d) => d.sentAt)]
  const from = Math.min(...times) - 5_000
  const to = Math.max(...times) + 5_000
  return {
    ops,
    deliveries,
    faults: h.faults.filter((f) => f.start <= to && f.end >= from),
    environment: (h.environment ?? []).filter((e) => e.at >= from && e.at <= to),
  }
}

/** A human report: figures per promise, then each violation with its slice (times relative to the run's start). */
export function formatVerdict(h: History, verdict: Verdict, maxViolations = 5): string {
  const t = (ms: number) => `+${((ms - h.startedAt) / 1000).toFixed(3)}s`
  const lines = [
    `chaos run, seed ${h.seed}: ${verdict.valid ? 'no violations' : `${verdict.violations.length} violation(s)`}`,
  ]
  for (const p of PROMISES) {
    const f = verdict.figures[p]
    const extra = Object.entries(f)
      .filter(([k]) => !['checked', 'violations'].includes(k))
      .map(([k, v]) => `${k} ${v}`)
      .join(', ')
    lines.push(
      `  ${p.padEnd(24)} checked ${String(f.checked).padStart(6)}  violations ${f.violations}${extra ? `  (${extra})` : ''}`,
    )
  }
  for (const v of verdict.violations.slice(0, maxViolations)) {
    const s = sliceFor(h, v)
    lines.push('', `VIOLATION ${v.promise}: ${v.message}`, `  reproduce: npm run chaos -- --seed ${h.seed}`)
    for (const op of s.ops)
      lines.push(
        `  op #${op.n} ${op.client} ${op.kind}${op.via ? `/${op.via}` : ''} ${op.id} token=${op.token ?? '-'} ${t(op.invokeAt)}..${t(op.completeAt)} ${op.outcome} ${op.status ?? ''} ${op.code ?? ''} due=${op.answerRunAtMs ?? op.runAtMs ?? (op.delayMs !== undefined ? `${t(op.invokeAt)}+${op.delayMs}` : '-')}`,
      )
    for (const d of s.deliveries)
      lines.push(
        `  delivery ${d.jobId} token=${d.token ?? '-'} msg=${d.messageId} sent ${t(d.sentAt)} received ${t(d.receivedAt)} x${d.receiveCount}`,
      )
    for (const f of s.faults)
      lines.push(`  fault ${f.kind} ${f.target ?? ''} ${t(f.start)}..${t(f.end)} ${f.detail ?? ''}`)
    if (s.environment.length) lines.push(`  environment: ${environmentLine(s.environment, t)}`)
  }
  if (verdict.violations.length > maxViolations)
    lines.push(`  ... and ${verdict.violations.length - maxViolations} more`)
  return lines.join('\n')
}

/** Unanswered sends in a slice, summed per scanner and kind (a loaded run has thousands of them). */
function environmentLine(list: EnvironmentFault[], t: (ms: number) => string): string {
  const sums = new Map<string, number>()
  for (const e of list) sums.set(`${e.scanner} ${e.kind}`, (sums.get(`${e.scanner} ${e.kind}`) ?? 0) + e.count)
  const parts = [...sums].map(([key, n]) => `${key} ${n}`).join(', ')
  return `${parts} (${t(list[0]!.at)}..${t(list.at(-1)!.at)})`
}
