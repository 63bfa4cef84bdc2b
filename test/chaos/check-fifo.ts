// FIFO order per message group: a group's jobs reach SQS in the order of their due times (docs/internals.md, "FIFO
// order across shards"), with the relaxations the design names, each counted apart:
// - two runs at once: the order is kept per scanner run, and the chaos run keeps several scanners running (and each
//   hands over to a new run every RUN_MS). Jobs of one group claimed by two runs can go out of order, but only by
//   so much: the later job's run merges every shard up to its due time before sending it, so the earlier job was
//   already leased by another run, which sends it within its lease or not at all (a lane drops a job whose lease
//   would end during its send), or gives it back at its end, held, for the next run to send within a lease of its
//   own. An inversion longer than two leases has no such excuse.
// - a fault between the earlier job's due time and its send (a scanner killed, paused, cut off or restarted, Redis
//   failing over, SQS refusing, timing out or losing answers): retries and expired leases hold back the group only
//   within the run that saw them, and an entry refused within a SendMessageBatch may leave a later one taken.
// Order is SQS's own: the SequenceNumber of each job's first message (SentTimestamp when there is none). A job's due
// time is the one it asked for, or when its write landed if that was later (a write held up by a partition lands
// with its time past): the history bounds it by the call's start and answer, so two jobs are held to an order only
// when the earlier one's due time, so bounded, is before the later one's (else counted apart: uncertainDue). Equal
// due times have no required order. Deliveries of jobs never acknowledged count like the others: a delivery says
// the job existed.
import { groupBy, type Delivery, type History, type Op } from './history'
import type { PromiseFigures, Violation } from './violation'

/** Faults that can delay or reorder a send (an API partition only delays writes). */
const DISPATCH_FAULTS = new Set([
  'scanner-kill',
  'scanner-pause',
  'scanner-partition',
  'scanner-skew',
  'primary-kill',
  'replica-cut-primary-kill',
  'sqs-refuse',
  'sqs-outage',
  'sqs-drop-answers',
])

interface Sent {
  id: string
  dueMs: number
  /** The due time the job got lies in [earliestDue, latestDue]: its write landed between call and answer. */
  earliestDue: number
  latestDue: number
  first: Delivery
}

export function checkFifo(h: History): { violations: Violation[]; figures: PromiseFigures } {
  const figures: PromiseFigures = {
    checked: 0,
    violations: 0,
    pairs: 0,
    inversions: 0,
    excusedTwoRuns: 0,
    excusedFault: 0,
    uncertainDue: 0,
  }
  const violations: Violation[] = []
  const firstSends = firstDeliveries(h.deliveries)
  const faults = h.faults.filter((f) => DISPATCH_FAULTS.has(f.kind))
  for (const [group, ops] of groupBy(
    h.ops.filter((op) => op.groupId && op.kind === 'create'),
    (op) => op.groupId,
  )) {
    const sent: Sent[] = []
    for (const op of ops) {
      const first = firstSends.get(op.id)
      const dueMs = dueOf(op)
      if (first && dueMs !== undefined)
        sent.push({
          id: op.id,
          dueMs,
          earliestDue: Math.max(dueMs, op.invokeAt),
          latestDue: Math.max(dueMs, op.completeAt),
          first,
        })
    }
    sent.sort((a, b) => a.dueMs - b.dueMs)
    figures.checked += sent.length
    for (let j = 0; j < sent.length; j++) {
      const later = sent[j]!
      for (let i = 0; i < j; i++) {
        const earlier = sent[i]!
        if (earlier.dueMs === later.dueMs) continue
        if (earlier.latestDue >= later.earliestDue) {
          figures.uncertainDue!++
          continue
        }
        figures.pairs!++
        if (!before(later.first, earlier.first)) continue
        figures.inversions!++
        const gapMs = earlier.first.sentAt - later.first.sentAt
        if (h.settings.scanners > 1 && gapMs < 2 * h.settings.leaseMs + h.settings.toleranceMs) {
          figures.excusedTwoRuns!++
          continue
        }
        if (faults.some((f) => f.start <= earlier.first.sentAt && f.end >= earlier.dueMs)) {
          figures.excusedFault!++
          continue
        }
        violations.push({
          promise: 'fifo-order',
          message:
            `group ${group}: ${later.id} (due ${later.dueMs}) reached SQS before ${earlier.id} (due ${earlier.dueMs}), ` +
            `${gapMs} ms ahead, with no fault after ${earlier.id} was due and more than two leases apart`,
          ids: [earlier.id, later.id],
        })
      }
    }
  }
  return { violations, figures }
}

/** A create's due time: the time asked (batch) or named by the answer. */
function dueOf(op: Op): number | undefined {
  return op.answerRunAtMs ?? op.runAtMs
}

/** Each job's first message by SQS's order. */
function firstDeliveries(deliveries: readonly Delivery[]): Map<string, Delivery> {
  const first = new Map<string, Delivery>()
  for (const d of deliveries) {
    if (!d.groupId) continue
    const known = first.get(d.jobId)
    if (!known || before(d, known)) first.set(d.jobId, d)
  }
  return first
}

/** `a` was sent before `b`: by SequenceNumber within a group, else by SentTimestamp. */
function before(a: Delivery, b: Delivery): boolean {
  if (a.sequence && b.sequence && a.groupId === b.groupId) return BigInt(a.sequence) < BigInt(b.sequence)
  return a.sentAt < b.sentAt
}
