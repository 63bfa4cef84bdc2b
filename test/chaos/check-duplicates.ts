// Duplicates: a job version (or an occurrence) that SQS took more than once (distinct message ids), against the
// documented bound: one claimed batch (the scanner's in-flight cap) per scanner death or pause past its lease or cut
// from Redis, two per clock-skewed restart, per failover (acknowledgements in flight), per SQS outage (answers cut in flight), and one
// SendMessageBatch (10 entries) per answer dropped after SQS took it. Receiving the same message id again is SQS's
// own redelivery (visibility timeout), counted apart.
import { groupBy, type FaultKind, type History } from './history'
import type { PromiseFigures, Violation } from './violation'

const BATCH_ENTRIES = 10

const PER_IN_FLIGHT: ReadonlySet<FaultKind> = new Set([
  'scanner-kill',
  'scanner-pause',
  'scanner-partition',
  'primary-kill',
  'replica-cut-primary-kill',
  'sqs-outage',
])

export function duplicateBound(h: History): number {
  let bound = 0
  for (const f of h.faults) {
    if (PER_IN_FLIGHT.has(f.kind)) bound += h.settings.maxInFlight * (f.target === 'all' ? h.settings.scanners : 1)
    // A clock-skewed scanner is stopped and started twice (SIGTERM, which a slow stop turns into SIGKILL).
    if (f.kind === 'scanner-skew') bound += 2 * h.settings.maxInFlight
    if (f.kind === 'sqs-drop-answers') bound += BATCH_ENTRIES * (f.count ?? 1)
  }
  return bound
}

export function checkDuplicates(h: History): { violations: Violation[]; figures: PromiseFigures } {
  let duplicates = 0
  let redeliveries = 0
  const worst: [string, number][] = []
  for (const [key, ds] of groupBy(h.deliveries, (d) => `${d.jobId} ${d.token ?? ''}`)) {
    const messages = new Set(ds.map((d) => d.messageId))
    duplicates += messages.size - 1
    redeliveries += ds.length - messages.size
    if (messages.size > 1) worst.push([key.split(' ')[0]!, messages.size])
  }
  const bound = duplicateBound(h)
  const figures: PromiseFigures = {
    checked: h.deliveries.length,
    violations: duplicates > bound ? 1 : 0,
    duplicates,
    bound,
    redeliveries,
  }
  const violations: Violation[] =
    duplicates > bound
      ? [
          {
            promise: 'duplicates-bounded',
            message: `${duplicates} duplicate sends against a bound of ${bound} (faults: ${h.faults.length})`,
            ids: worst
              .sort((a, b) => b[1] - a[1])
              .slice(0, 3)
              .map(([id]) => id),
          },
        ]
      : []
  return { violations, figures }
}
