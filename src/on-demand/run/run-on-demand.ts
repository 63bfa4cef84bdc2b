// On-demand scan mode: one invocation's scanner runs as in continuous mode, and a watch beside it ends the run
// early once nothing is due before the next scheduled invocation could take it, after a linger without work.
//
// The hand-over with enqueues has no gap: an enqueue is atomic with its read of the alive marker
// (lua/enqueue.lua), and a retiring run looks at its shard's due times in the same step that takes its name off the
// marker (lua/scanner-retire.lua). An enqueue that saw the marker is visible to that look (the run stays); one that
// came after it sees no marker (it starts a scanner). Each run removes only its own name, so a run that ends never
// hides another that still scans. Jobs are never lost either way: what no scanner takes now, the next scheduled
// invocation takes.
import { defaultLog, type Log } from '../../logger'
import type { Presence } from './presence'
import { ALIVE_REFRESH_MS } from './presence'
import type { ScanReport } from '../../scan/observe/run-tally'
import type { Scanner } from '../../scan/loop/scanner'

export interface OnDemandOptions {
  presence: Presence
  /** Anything due sooner than this keeps the scanner running: the next scheduled invocation might be too late. */
  horizonMs: number
  /** How long to stay after the last job, for the ones that follow it. */
  lingerMs: number
  /**
   * True once a newer run has taken over (src/scan/run/relay.ts): from then on the run no longer refreshes its name in
   * the alive marker (the newer run's name stands there).
   */
  keepMarker?: () => boolean
  /** Called before the run retires for lack of work: the relay gives its key back (src/scan/run/relay.ts). */
  beforeRetire?: () => Promise<void>
  logger?: Log
}

export interface OnDemandReport extends ScanReport {
  /** True when the run ended because nothing was due soon (false: it reached its deadline). */
  endedEarly: boolean
}

/** Longest pause between two looks at the due times while waiting for a job due within the horizon. */
const MAX_CHECK_MS = 1_000

export async function runOnDemand(
  scanner: Scanner,
  untilMs: number,
  options: OnDemandOptions,
): Promise<OnDemandReport> {
  const { presence, horizonMs, lingerMs } = options
  const log = options.logger ?? defaultLog()
  // The scan does not wait for the marker (a Redis node that hangs would hold every shard's scan); the watch does,
  // so that no retire comes before the marker lands.
  const marked = presence.markAlive().catch((e) => log.warn('alive marker failed', { error: String(e) }))
  let finished = false
  const run = scanner.run(untilMs).finally(() => (finished = true))
  const finishedOrAfter = (ms: number) => Promise.race([run.catch(() => {}), new Promise((r) => setTimeout(r, ms))])
  let refreshedAt = Date.now()
  let endedEarly = false
  let pauseMs = 0
  await marked
  while (!finished) {
    await finishedOrAfter(pauseMs)
    if (finished) break
    // Stopped for a newer run: its name stands in the marker now, and this run's goes as it ends. Stop the scanner
    // again: if the marker took long, the relay's stop came before run() started, and run() forgot it.
    if (options.keepMarker?.()) {
      scanner.stop()
      break
    }
    try {
      if (Date.now() - refreshedAt >= ALIVE_REFRESH_MS) {
        await presence.refresh()
        refreshedAt = Date.now()
      }
      const quietMs = Date.now() - scanner.lastWorkMs()
      if (quietMs < lingerMs) {
        pauseMs = Math.min(lingerMs - quietMs, ALIVE_REFRESH_MS)
        continue
      }
      let untilDue = await presence.msUntilNextDue()
      if (untilDue >= horizonMs) {
        await options.beforeRetire?.()
        // Looks again, shard by shard, in the step that removes the name: null when nothing came in the meantime.
        const kept = await presence.retire(horizonMs)
        if (kept === null) {
          endedEarly = true
          scanner.stop()
          break
        }
        untilDue = kept
      }
      // Something is due within the horizon: the scanner takes it (after its dispatch window); look again once it
      // could be done with it.
      pauseMs = Math.max(50, Math.min(untilDue + scanner.windowMs + lingerMs, MAX_CHECK_MS))
    } catch (e) {
      // Redis away: keep scanning (the scanner backs off on its own); the marker expires if we cannot refresh it.
      log.warn('on-demand watch failed', { error: String(e) })
      pauseMs = MAX_CHECK_MS
    }
  }
  const report = await run
  // Only this run's name goes (a newer run that took over keeps its own), whatever is due: the run is over.
  if (!endedEarly) await presence.retire(0).catch((e) => log.warn('alive marker removal failed', { error: String(e) }))
  return { ...report, endedEarly }
}
