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
      async (req) => {
        const input = await withinOnRedisClock(await readJson(req), store, queue.config.maxHorizonMs)
        return [200, { ...(await queue.runDue(input, { maxRuns: RUNS_PER_REQUEST })), before: input.before }]
      },
    ],
    [
      'POST',
      /^\/api\/jobs\/([^/]+)\/reschedule$/,
      async (req, m) => {
        const to = when(await readJson(req), queue)
        await queue.runNow(id(m), to)
        return [200, await queue.get(id(m))]
      },
    ],
  ]
}

/**
 * The page asks for the jobs due within `withinMs` (its minutes): counted here from Redis's clock, which the due times
 * are on, not from the browser's, which may be hours off (it would run jobs the operator did not ask to run). The
 * answer carries the `before` this made, and the page's next steps send it back with the cursor.
 */
async function withinOnRedisClock(body: unknown, store: JobStore, maxMs: number): Promise<Record<string, unknown>> {
  const { withinMs, ...rest } = (body ?? {}) as Record<string, unknown>
  if (withinMs === undefined) return rest
  if (!Number.isSafeInteger(withinMs) || (withinMs as number) < 1 || (withinMs as number) > maxMs) {
    throw new ValidationError([{ path: 'withinMs', message: `must be an integer of ms from 1 to ${maxMs}` }])
  }
  const [seconds, micros] = await store.redis.time()
  return { ...rest, before: Number(seconds) * 1000 + Math.floor(Number(micros) / 1000) + (withinMs as number) }
}

/** The new time, held to the job rules (delayMs or runAt, within the horizon), named as they name it. */
function when(body: unknown, queue: DelayQueue): { delayMs: number } | { atMs: number } {
  const { delayMs, runAt } = (body ?? {}) as { delayMs?: unknown; runAt?: unknown }
  // A missing time would mean "now" to the job rules: from a cleared form field that fires a job by mistake.
  if (delayMs === undefined && runAt === undefined) {
    throw new ValidationError([{ path: 'delayMs', message: 'give delayMs or runAt: when the job should run' }])
  }
  const anyQueue = Object.keys(queue.config.queues)[0]!
  return validateJob({ queue: anyQueue, payload: null, delayMs, runAt }, queue.config).due
}
