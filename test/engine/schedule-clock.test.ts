// After an outage, a schedule's missed occurrences fire once: the overdue one, then the first occurrence after now.
// "Now" is Redis's clock, whatever the scanner's own clock says (it is skewed here through the scanner's injected
// clock), and a dispatch window does not turn the missed occurrences into several catch-ups.
import { afterAll, describe, expect, it } from 'vitest'
import { eventually } from '../support/eventually'
import { pendingCount } from '../support/scanner'
import { describeSeries, seriesFaults } from '../support/series-gaps'
import { RECEIPT_TTL_MS, seriesStage, wholeSecond } from '../support/series-stage'
import { sqsClient } from '../support/sqs'

const sqs = sqsClient()
afterAll(() => sqs.destroy())

const OUTAGE_MS = 7_500

/**
 * A 1 s schedule whose first occurrence and the 7 after it pass with no scanner running; then a scanner (its clock
 * `skewMs` off Redis's, with a dispatch window of `windowMs`) runs for 4.5 s plus the window. Returns the occurrence
 * times that reached the queue, and when the scanner started.
 */
async function outage(name: string, skewMs: number, windowMs = 0) {
  const stage = await seriesStage(sqs, name)
  try {
    const start = wholeSecond()
    await stage.everySecond(name, start)
    await eventually(() => Date.now() >= start + OUTAGE_MS, OUTAGE_MS + 5_000)
    const restart = Date.now()
    const scanner = stage.scanner({
      localClock: () => Date.now() + skewMs,
      dispatchWindowMs: windowMs,
      receiptTtlMs: RECEIPT_TTL_MS,
    })
    await scanner.runUntil(() => Date.now() >= restart + 4_500 + windowMs, 20_000)
    const view = (await stage.q.getSchedule(name))!
    await stage.q.deleteSchedule(name)
    const steps = await stage.steps(await stage.received())
    const times = steps.map((x) => x.atMs)
    const series = `restart +${restart - start} ms, runs ${view.runs}, messages:\n${describeSeries(start, steps)}`
    return { start, restart, times, steps, series, runs: view.runs, left: await pendingCount(stage.t.store) }
  } finally {
    await stage.close()
  }
}

describe('missed occurrences on Redis clock', () => {
  it.concurrent.each([
    { skewMs: 5_000, windowMs: 0 },
    { skewMs: -5_000, windowMs: 0 },
    { skewMs: 0, windowMs: 3_000 },
  ])(
    'fire once, and no later occurrence is lost: scanner clock $skewMs ms off Redis, window $windowMs ms',
    async ({ skewMs, windowMs }) => {
      // prepare / act
      const { start, restart, times, steps, series, runs, left } = await outage(
        `clock${skewMs}w${windowMs}`,
        skewMs,
        windowMs,
      )
      // assess: one catch-up (the overdue first occurrence) ...
      const catchUps = times.filter((at) => at < restart)
      const after = times.filter((at) => at >= restart)
      expect(catchUps, series).toEqual([start])
      // ... then the occurrences after the restart, none lost: each one is the next time of the series unless that
      // time had passed on Redis's clock when its predecessor was acknowledged (the catch-up's ack comes once the
      // scanner is up: seconds after the restart on a loaded machine), so no time still ahead at an ack is skipped
      expect(after.length, series).toBeGreaterThanOrEqual(3)
      expect(seriesFaults(steps, 1000), series).toEqual([])
      // runs counts each delivered occurrence; the delete left nothing behind
      expect(runs, series).toBe(times.length)
      expect(left).toBe(0)
    },
  )
})
