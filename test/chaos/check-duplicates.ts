// Duplicates: a job version (or an occurrence) that SQS took more than once (distinct message ids), against the
// documented bound: one claimed batch (the scanner's in-flight cap) per scanner death or pause past its lease or cut
// from Redis, two per clock-skewed restart, per failover (acknowledgements in flight), per SQS outage (answers cut in flight), and one
// SendMessageBatch (10 entries) per answer dropped after SQS took it; and, for what the environment did (a loaded
// machine makes sends time out: history.environment), one per entry of a send SQS may have taken without answering.
// That last term grows with the machine's load, not with a defect: a send that ended without an answer is retried
// and can leave one copy more, never two. Copies made any other way (an acknowledgement lost, a claim on a master
// that is no longer one, a clock gone wrong) have only the injected faults' terms to hide in, so they still break it.
// Whether the dispatcher keeps such sends few when SQS is slow is the brownout test's to check, not this bound's.
// Receiving the same message id again is SQS's own redelivery (visibility timeout), counted apart.
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
  return bound + environmentBound(h)
}

/**
 * Copies the scanners' unanswered sends can account for. Counted per attempt (`unanswered`: the SDK retries an
 * attempt that timed out, and each may have landed) and per job released (`maybe-sent`); either sum bounds the
 * copies when the scanners report it, the larger one is taken.
 */
export function environmentBound(h: History): number {
  let unanswered = 0
  let maybeSent = 0
  for (const e of h.environment ?? []) {
    if (e.kind === 'unanswered') unanswered += e.count
    else maybeSent += e.count
  }
  return Math.max(unanswered, maybeSent)
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
  const environment = environmentBound(h)
  const figures: PromiseFigures = {
    checked: h.deliveries.length,
    violations: duplicates > bound ? 1 : 0,
    duplicates,
    bound,
    unansweredSends: environment,
    redeliveries,
  }
  const violations: Violation[] =
    duplicates > bound
      ? [
          {
            promise: 'duplicates-bounded',
            message: `${duplicates} duplicate sends against a bound of ${bound} (faults: ${h.faults.length}; unanswered sends: ${environment})`,
            ids: worst
              .sort((a, b) => b[1] - a[1])
              .slice(0, 3)
              .map(([id]) => id),
          },
        ]
      : []
  return { violations, figures }
}
