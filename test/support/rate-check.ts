// The rate a flow key promises, judged from when its jobs left: over any span from one send to a later one, no more
// than burst + rate x span jobs (docs/flow-control.md). Used by the engine tests, the fault tests and the chaos checker.

/**
 * How far the busiest span of `timesMs` goes over the promise (jobs; <= 0: kept), with `slackMs` of measuring error
 * allowed on each span (sends are timed where SQS answered, after a network call that the bucket does not see).
 */
export function excessOverRate(timesMs: readonly number[], rate: number, burst: number, slackMs = 0): number {
  const t = [...timesMs].sort((a, b) => a - b)
  let worst = Number.NEGATIVE_INFINITY
  for (let i = 0; i < t.length; i++) {
    for (let j = i; j < t.length; j++) {
      const allowed = burst + (rate * (t[j]! - t[i]! + slackMs)) / 1000
      worst = Math.max(worst, j - i + 1 - allowed)
    }
  }
  return t.length === 0 ? 0 : worst
}
