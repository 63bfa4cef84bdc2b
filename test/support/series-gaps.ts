// What a fixed-rate series may leave out, checked against when each occurrence was really acknowledged. The ack of an
// occurrence creates its successor (lua/schedule-ack.lua): the next time of the series, unless that time had already
// passed on Redis's clock at the ack (with no dispatch window), then the first one after that moment, so missed
// occurrences fire once (docs/schedules.md). On a loaded machine an ack can come more than a period late, and the series
// then leaves a time out on purpose; a time left out while it was still ahead is a lost occurrence.

/** One sent occurrence: its time, and when its record was created (its predecessor's ack, on Redis's clock). */
export interface SentOccurrenceStep {
  atMs: number
  createdAtMs: number
}

/**
 * What is wrong with these occurrences (sorted by time) as a series every `everyMs`: a time off the series after
 * its predecessor, or a time left out although it was still ahead when the predecessor was acknowledged (the
 * successor's creation time), or an occurrence whose creation time is unknown. Empty for a sound series.
 */
export function seriesFaults(steps: readonly SentOccurrenceStep[], everyMs: number): string[] {
  const faults: string[] = []
  for (let k = 1; k < steps.length; k++) {
    const before = steps[k - 1]!.atMs
    const { atMs, createdAtMs } = steps[k]!
    if (!Number.isFinite(createdAtMs)) {
      faults.push(`${atMs} has no creation time: whether a time before it was missed cannot be told`)
      continue
    }
    if (atMs <= before || (atMs - before) % everyMs !== 0) {
      faults.push(`${atMs} is not a time of the series after ${before}`)
      continue
    }
    for (let t = before + everyMs; t < atMs; t += everyMs) {
      if (t > createdAtMs)
        faults.push(`${t} left out though still ahead when ${before} was acknowledged (${createdAtMs})`)
    }
  }
  return faults
}

/** One line per occurrence, times relative to `startMs`: the readable part of a failure message. */
export function describeSeries(
  startMs: number,
  steps: readonly (SentOccurrenceStep & { id: string; attempts?: number; acceptedAtMs?: number })[],
): string {
  const rel = (ms: number | undefined) => (ms === undefined ? '?' : `${ms - startMs >= 0 ? '+' : ''}${ms - startMs}`)
  return steps
    .map(
      (s) =>
        `${s.id} (${rel(s.atMs)} ms): created ${rel(s.createdAtMs)}, accepted ${rel(s.acceptedAtMs)}, attempts ${s.attempts ?? '?'}`,
    )
    .join('\n')
}
