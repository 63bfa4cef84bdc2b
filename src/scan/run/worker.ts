// A scan worker's run (started by a scan run's fan-out, src/scan/run/fan-out.ts): the same scanner, claiming with
// leases, without the relay (a worker is no minute's run: it neither takes over from one nor stops one) and without
// the on-demand alive marker. It ends once it has had no work for `idleMs` (the backlog it was started for is
// drained: its claims find nothing due), or at its deadline.
import type { ScanReport } from '../observe/run-tally'
import type { Scanner } from '../loop/scanner'

export interface WorkerReport extends ScanReport {
  /** True when it ended for lack of work (false: at its deadline). */
  drained: boolean
}

/** How long a worker stays without work: a few claim round trips, against jobs claimed by the others meanwhile. */
export const WORKER_IDLE_MS = 500

/** How often the watch looks at the scanner's last work. */
const LOOK_MS = 50

export async function runWorker(
  scanner: Scanner,
  untilMs: number,
  options: { idleMs?: number } = {},
): Promise<WorkerReport> {
  const idleMs = options.idleMs ?? WORKER_IDLE_MS
  const startedAt = Date.now()
  let finished = false
  let drained = false
  const run = scanner.run(untilMs).finally(() => (finished = true))
  while (!finished) {
    await Promise.race([run.catch(() => {}), new Promise((r) => setTimeout(r, LOOK_MS))])
    if (finished) break
    // Counted from the start too: a worker that finds nothing at all (others drained it first) ends as soon.
    // Drained only once a claim found nothing due: a claim that has not answered yet (a starved process, a loaded
    // Redis) is no sign of a drained backlog. Claims still on their way when it stops are delivered before the run
    // ends. (An on-demand run, by contrast, ends at once when nothing was claimed: src/on-demand/run/run-on-demand.ts.)
    const quietMs = Date.now() - Math.max(startedAt, scanner.lastWorkMs(true))
    if (quietMs >= idleMs) {
      drained = true
      scanner.stop()
      break
    }
  }
  return { ...(await run), drained }
}
