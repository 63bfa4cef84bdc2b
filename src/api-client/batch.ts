// POST /jobs/batch with retries that cannot duplicate: every job carries its id from the first attempt (own-job.ts).
// The API answers a batch with one result per job; a job refused for a passing reason (Redis unavailable, a write
// its replica did not confirm, a throttle) is sent again in a smaller batch, and a job that an earlier attempt did
// store answers 409 with itself: that is its success.
import type { ApiErrorCode } from './errors'
import { DelayQueueApiError } from './errors'
import { isOwnJob, type JobWithId } from './own-job'
import { call, retryDelayMs, sleep, type Transport } from './transport'
import { LOOKUP_FAILED, storedByEarlierAttempt } from './earlier-attempt'
import type { BatchResult } from './types'

/** Per-job refusals that say nothing about the job itself: the same job may succeed a moment later. */
const PASSING: ReadonlySet<ApiErrorCode> = new Set(['ServiceUnavailable', 'ReplicationUnconfirmed', 'TooManyRequests'])

export async function scheduleBatch(t: Transport, jobs: readonly JobWithId[]): Promise<BatchResult[]> {
  const invokedAt = Date.now()
  // One HTTP attempt per round: a batch refused or unanswered as a whole is sent again by the rounds below, so that
  // each round first drops the jobs an earlier attempt stored and SQS has taken since (their receipts).
  const once: Transport = { ...t, retry: { ...t.retry, attempts: 1 } }
  const results: BatchResult[] = new Array(jobs.length)
  // HTTP attempts that carried each job: a 409 after more than one may be the job's own earlier write.
  const sends: number[] = jobs.map(() => 0)
  let pending = jobs.map((_, i) => i)
  for (let round = 1; pending.length > 0; round++) {
    let answer: Awaited<ReturnType<typeof call>> | undefined
    let failure: unknown
    try {
      answer = await call(once, 'POST', '/jobs/batch', { jobs: pending.map((i) => jobs[i]) }, { retryUnanswered: true })
    } catch (e) {
      failure = e
    }
    const again: number[] = []
    if (!answer) {
      for (const i of pending) sends[i]! += 1
      if (round < t.retry.attempts && passingFailure(failure)) again.push(...pending)
      // A later round that fails as a whole must not hide what the earlier rounds stored: those keep their results,
      // the rest carry the failure (and their ids, so that the caller can look them up or send them again).
      else if (round === 1 || !(failure instanceof DelayQueueApiError)) throw failure
      else
        for (const i of pending)
          results[i] = { id: jobs[i]!.id, error: { code: failure.code, message: failure.message } }
    } else {
      const attempts = answer.attempts
      ;(answer.body.results as BatchResult[]).forEach((result, k) => {
        const i = pending[k]!
        const job = jobs[i]!
        sends[i]! += attempts
        if (!('error' in result)) results[i] = result
        else if (result.error.code === 'Conflict' && sends[i]! > 1 && isOwnJob(job, result.job)) {
          results[i] = { id: job.id, status: 'scheduled' }
        } else if (PASSING.has(result.error.code) && round < t.retry.attempts) again.push(i)
        else results[i] = { ...result, id: job.id }
      })
    }
    if (again.length > 0) await sleep(retryDelayMs(t.retry, round, null))
    // A refused write may have landed all the same (unconfirmed by a replica, a timeout, an answer lost) and its job
    // left for SQS meanwhile: its receipt is its success (src/api-client/earlier-attempt.ts).
    // A job still stored is taken too: it may be acknowledged (gone) by the time a copy sent again arrives. When the
    // look-up fails, the job is not sent again: its result keeps the refusal, and the caller looks it up later.
    const found = await Promise.all(again.map((i) => storedByEarlierAttempt(t, jobs[i]!, invokedAt)))
    pending = again.filter((i, k) => {
      const f = found[k]
      if (!f) return true
      results[i] =
        f === LOOKUP_FAILED
          ? { id: jobs[i]!.id, error: { code: 'ServiceUnavailable', message: 'refused, and its look-up failed' } }
          : { id: jobs[i]!.id, status: 'scheduled' }
      return false
    })
  }
  return results
}

/** A batch refused as a whole for a passing reason (503, 429), or never answered: the rounds send it again. */
function passingFailure(e: unknown): boolean {
  if (e instanceof DelayQueueApiError) return e.status === 503 || e.status === 429
  return e instanceof Error
}
