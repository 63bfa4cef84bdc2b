// The promise of deleting recurring schedules by tag (DELETE /schedules?tag=, test/chaos/schedule-tag-lanes.ts).
//
// schedule-tag-delete-holds: a delete by tag answered 200 with done=true deletes each schedule that had the tag when
// it was called as DELETE /schedules/{id} would: no occurrence of it falls after the answer. The rule is the schedule
// checker's for a single delete (an occurrence a scanner holds at the answer still goes out; its time has come, so
// it is no later than the answer + the clock tolerance). Judged are the tagged versions whose write was answered ok
// before the delete was called; a write answered after the call started may land after the delete passed its
// schedule ("a schedule given the tag while the delete runs may or may not be deleted"), and one whose answer was
// lost may land at any time: those, and the schedules of a delete whose answer was lost, are counted indeterminate.
import type { History, Op } from './history'
import type { PromiseFigures, Violation } from './violation'

export function checkScheduleTagDeletes(h: History): { violations: Violation[]; figures: PromiseFigures } {
  const figures: PromiseFigures = { checked: 0, indeterminate: 0, violations: 0, deletes: 0 }
  const violations: Violation[] = []
  for (const del of h.ops.filter((op) => op.kind === 'sched-tag-delete' && op.outcome !== 'fail')) {
    const versions = taggedVersions(h.ops, del)
    if (del.outcome !== 'ok' || del.done === false) {
      figures.indeterminate! += versions.length
      continue
    }
    figures.deletes!++
    for (const v of versions) {
      if (v.outcome !== 'ok' || v.completeAt >= del.invokeAt) {
        figures.indeterminate!++
        continue
      }
      figures.checked++
      const after = h.deliveries.filter(
        (d) =>
          d.scheduleId === v.id && d.token === v.token && d.occurrenceAtMs! > del.completeAt + h.settings.toleranceMs,
      )
      if (!after.length) continue
      figures.violations++
      violations.push({
        promise: 'schedule-tag-delete-holds',
        message: `schedule ${v.id}: the delete by tag ${del.id} (op #${del.n}) answered done at ${del.completeAt}, yet the version of op #${v.n} occurred after it: ${after.map((d) => d.occurrenceAtMs).join(', ')}`,
        ids: [v.id, del.id],
      })
    }
  }
  return { violations, figures }
}

/** The writes that gave a schedule the tag before the delete was called (a write's version carries its tags). */
export function taggedVersions(ops: readonly Op[], del: Op): Op[] {
  return ops.filter(
    (op) => op.kind === 'sched-put' && op.outcome !== 'fail' && op.n < del.n && op.tags?.includes(del.id) === true,
  )
}
