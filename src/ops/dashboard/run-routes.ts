// Run now from the dashboard: one pending job (POST /api/jobs/:id/run) and the jobs due before a time
// (POST /api/run-due {before, queue?, cursor?}), through DelayQueue, so the page gets the API's rules and answers: 409
// while a scanner sends the job, a bounded share per request with a cursor to ask again with.
import type { DelayQueue } from '../../direct/delay-queue'
import { validateJobRef } from '../../direct/id-rules'
import { type Handler, idIn, readJson } from './request-parts'

/** Script runs of one run-due request (each reads at most 500 jobs of one shard): the page asks again with the cursor. */
const RUNS_PER_REQUEST = 64

export function runRoutes(queue: DelayQueue): [string, RegExp, Handler][] {
  return [
    ['POST', /^\/api\/jobs\/([^/]+)\/run$/, async (_req, m) => [200, await queue.runNow(idIn(m, validateJobRef))]],
    [
      'POST',
      /^\/api\/run-due$/,
      async (req) => [200, await queue.runDue(await readJson(req), { maxRuns: RUNS_PER_REQUEST })],
    ],
  ]
}
