// On-demand scan mode, the enqueuer's side: when the enqueue script says a job is due before the next scheduled scan
// and no scanner runs, start the scan function (an asynchronous invoke: src/on-demand/start/lambda-invoker.ts).
//
// The start never holds the write's answer for long: the answer waits for the first invoke at most answerWaitMs
// (START_TIMINGS; an invoke normally settles within that), and the start goes on in the background. A start that
// fails is tried again, not guarded away: a refused, throttled or timed-out invoke is retried with backoff, and an
// accepted invoke whose scanner does not come up within confirmMs (Lambda lost or delayed the event) is invoked
// again, until a scanner is alive or budgetMs have passed. Then the start gives its guard back (only its own: the
// guard holds the job id as the start's token), so the next enqueue asks again, and the failed start is counted
// ("scan start failed", with failedStarts). A start never fails the enqueue: the job is stored, and the next
// scheduled scan takes it if nothing else does.
//
// In Lambda, what goes on after the handler returned is frozen with the execution environment and resumes only if
// that environment serves another request. So the answer waits for the first invoke (it has reached Lambda by then:
// the invoker warms itself up at cold start), and nothing is left to the background that the store does not
// recover: a start frozen midway holds its guard until the guard expires (SCAN_START_GUARD_MS) or the scan it
// started ends (that scan gives the guard back, lua/scanner-retire.lua), and the next tick takes the job.
import { defaultLog, type Log } from '../../logger'
import { occurrenceId } from '../../recurrence/occurrence-id'
import type { EnqueueResult, JobStore } from '../../store/job-store'
import { releaseScanStart, scanStartEvent, scannerAlive, takeScanStart, takeScanStartUnlessAlive } from './scan-start'
import type { ScanInvoker } from './lambda-invoker'

export { INVOKE_TIMEOUT_MS, lambdaInvoker, type ScanInvoker } from './lambda-invoker'

export interface StartTimings {
  /** How long the write's answer waits for the first invoke to settle. */
  answerWaitMs: number
  /** After an accepted invoke: how long to wait for a scanner to be alive before invoking again. */
  confirmMs: number
  /** How often to look for the scanner meanwhile. */
  confirmEveryMs: number
  /** Pause after the first failed invoke; doubled after each further one. */
  backoffMs: number
  /** The start gives up (and gives its guard back) once this has passed; shorter than SCAN_START_GUARD_MS. */
  budgetMs: number
}

export const START_TIMINGS: StartTimings = {
  answerWaitMs: 30,
  // A cold start of the scan function is ~0.3-1 s (512 MB / 256 MB, docs/cost.md), up to ~2 s with a VPC.
  confirmMs: 2_500,
  confirmEveryMs: 100,
  backoffMs: 200,
  budgetMs: 8_000,
}

/** Once a scanner is up, the start guard lapses this much later (not at once: see releaseScanStart). */
const GUARD_AFTER_UP_MS = 1_000

export class ScanStarter {
  /** Starts that failed, since this process started (logged with each failure). */
  failedStarts = 0
  private readonly running = new Set<Promise<void>>()
  private readonly timings: StartTimings

  constructor(
    private readonly store: JobStore,
    private readonly invoker: ScanInvoker,
    /** ON_DEMAND_HORIZON_MS: a job due sooner than this needs a running scanner. */
    private readonly horizonMs: number,
    private readonly logger: Log = defaultLog(),
    timings: Partial<StartTimings> = {},
  ) {
    this.timings = { ...START_TIMINGS, ...timings }
  }

  /** Starts a scanner if one of these enqueues asked for it (at most one start per call). */
  async afterEnqueue(results: readonly (EnqueueResult | unknown)[]): Promise<void> {
    const asked = results.find((r): r is EnqueueResult => (r as EnqueueResult | undefined)?.startScanner === true)
    if (!asked) return
    const { redis, keys } = this.store
    const shard = keys.locate(asked.id).shard.shard
    try {
      if (!(await takeScanStart(redis, keys, shard, asked.id))) return
    } catch (error) {
      this.logger.warn('scan start guard failed', { jobId: asked.id, error: String(error) })
      await releaseScanStart(redis, keys, shard, asked.id).catch(() => {})
      return
    }
    await this.launch(asked.id, shard, { jobId: asked.id })
  }

  /** After a schedule was created, replaced or resumed: starts a scanner if its next occurrence is due soon. */
  async afterSchedule(id: string, nextRunMs: number | null): Promise<void> {
    if (nextRunMs === null || nextRunMs >= Date.now() + this.horizonMs) return
    await this.startUnlessAlive(occurrenceId(id, nextRunMs), { scheduleId: id })
  }

  /** After run now made jobs due now (`token`: names this start, e.g. "<job id>@<ms>"): starts a scanner unless one runs. */
  afterRunNow(token: string, subject: Record<string, unknown>): Promise<void> {
    return this.startUnlessAlive(token, subject)
  }

  private async startUnlessAlive(token: string, subject: Record<string, unknown>): Promise<void> {
    const { redis, keys } = this.store
    try {
      if (!(await takeScanStartUnlessAlive(redis, keys, token))) return
    } catch (error) {
      this.logger.warn('scan start guard failed', { ...subject, error: String(error) })
      return
    }
    await this.launch(token, 0, subject)
  }

  /** Resolves once every start begun so far has ended (a scanner is up, or the start gave up). */
  async settled(): Promise<void> {
    while (this.running.size > 0) await Promise.all([...this.running])
  }

  /** Runs a start in the background; resolves when its first invoke settled, or after answerWaitMs. */
  private launch(token: string, shard: number, subject: Record<string, unknown>): Promise<void> {
    let firstSettled = () => {}
    const first = new Promise<void>((resolve) => (firstSettled = resolve))
    const start = this.start(token, shard, subject, firstSettled)
      .catch((error) => this.logger.warn('scan start failed', { ...subject, error: String(error) }))
      .finally(() => {
        firstSettled()
        this.running.delete(start)
      })
    this.running.add(start)
    let timer: NodeJS.Timeout | undefined
    const waited = new Promise<void>((resolve) => (timer = setTimeout(resolve, this.timings.answerWaitMs)))
    return Promise.race([first, waited]).finally(() => clearTimeout(timer))
  }

  private async start(
    token: string,
    shard: number,
    subject: Record<string, unknown>,
    firstSettled: () => void,
  ): Promise<void> {
    const { redis, keys } = this.store
    const t = this.timings
    const deadline = Date.now() + t.budgetMs
    let attempts = 0
    let failures = 0
    let lastError = ''
    for (;;) {
      attempts++
      const accepted = await this.invoker.invoke(scanStartEvent(token)).then(
        () => true,
        (error) => {
          lastError = String(error)
          return false
        },
      )
      firstSettled()
      if (accepted ? await this.scannerUp(Math.min(t.confirmMs, deadline - Date.now())) : await this.alive()) {
        // Up (ours, or another run that will see this job): the guard has done its work, but for enqueues that asked
        // just before the marker reached their shard and are taking shard 0's guard now.
        await releaseScanStart(redis, keys, shard, token, GUARD_AFTER_UP_MS).catch(() => {})
        return
      }
      if (accepted) lastError = `no scanner came up within ${t.confirmMs} ms of an accepted invoke`
      else failures++
      const pauseMs = accepted ? 0 : t.backoffMs * 2 ** (failures - 1)
      if (Date.now() + pauseMs >= deadline) break
      this.logger.warn('scan start retried', { ...subject, attempts, pauseMs, error: lastError })
      await sleep(pauseMs)
    }
    this.failedStarts++
    this.logger.warn('scan start failed; the next enqueue asks again, the next scheduled scan takes the job', {
      ...subject,
      attempts,
      error: lastError,
      failedStarts: this.failedStarts,
    })
    await releaseScanStart(redis, keys, shard, token).catch(() => {})
  }

  /** Whether a scanner is alive within `ms` (looked at every confirmEveryMs). */
  private async scannerUp(ms: number): Promise<boolean> {
    const until = Date.now() + ms
    for (;;) {
      if (await this.alive()) return true
      if (Date.now() >= until) return false
      await sleep(Math.min(this.timings.confirmEveryMs, Math.max(0, until - Date.now())))
    }
  }

  /** Marked alive on every shard: a scanner that has marked only some is still coming up. */
  private alive(): Promise<boolean> {
    return scannerAlive(this.store.redis, this.store.keys, true).catch(() => false)
  }
}

/** The start's own pauses do not keep a process alive (a script that enqueues and exits): the job is stored. */
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref())
