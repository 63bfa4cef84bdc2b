// Moving a job in time from the dashboard: run now (POST /api/jobs/:id/run), the jobs due before a time
// (POST /api/run-due {before, queue?, cursor?}: a bounded share per request, with a cursor the page asks again with),
// and reschedule (POST /api/jobs/:id/reschedule {delayMs | runAt}). Each moves only the job's due time, in one script
// with its checks (src/store/promote.ts): 409 while a scanner sends it, 404 once it is gone, and a job dispatched
// meanwhile is never created again (a read, then a replace, would have sent it twice).
import type { DelayQueue } from '../../direct/delay-queue'
import { validateJobRef } from '../../direct/id-rules'
import { validateJob } from '../../direct/validation'
import { ValidationError } from '../../errors'
import type { JobStore } from '../../store/job-store'
import { Promoter } from '../../store/promote'
import { type Handler, idIn, readJson } from './request-parts'

/** Script runs of one run-due request (each reads at most 500 jobs of one shard): the page asks again with the cursor. */
const RUNS_PER_REQUEST = 64

export function runRoutes(queue: DelayQueue, store: JobStore): [string, RegExp, Handler][] {
  const id = (m: RegExpMatchArray) => idIn(m, validateJobRef)
  return [
    ['POST', /^\/api\/jobs\/([^/]+)\/run$/, async (_req, m) => [200, await queue.runNow(id(m))]],
    [
      'POST',
      /^\/api\/run-due$/,
      async (req) => [200, await queue.runDue(await readJson(req), { maxRuns: RUNS_PER_REQUEST })],
    ],
    [
      'POST',
      /^\/api\/jobs\/([^/]+)\/reschedule$/,
      async (req, m) => {
        const to = when(await readJson(req), queue)
        await new Promoter(store).promote(id(m), to)
        return [200, await queue.get(id(m))]
      },
    ],
  ]
}

/** The new time, held to the job rules (delayMs or runAt, within the horizon), named as they name it. */
function when(body: unknown, queue: DelayQueue): { delayMs: number } | { atMs: number } {
  const { delayMs, runAt } = (body ?? {}) as { delayMs?: unknown; runAt?: unknown }
  // A missing time would mean "now" to the job rules: from a cleared form field that fires a job by mistake.
  if (delayMs === undefined && runAt === undefined) {
    throw new ValidationError([{ path: 'delayMs', message: 'give delayMs or runAt: when the job should run' }])
  }
  const anyQueue = Object.keys(queue.config.queues)[0]!
  return validateJob({ queue: anyQueue, payload: null, delayMs, runAt }, queue.config).schedule
}
