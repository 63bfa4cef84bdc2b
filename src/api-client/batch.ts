// POST /jobs/batch with retries that cannot duplicate: every job carries its id from the first attempt (own-job.ts),
// and every attempt of one scheduleMany() carries the same Idempotency-Key, which the API keeps with each job it
// stores. The API answers a batch with one result per job; a job refused for a passing reason (Redis unavailable, a
// write its replica did not confirm, a throttle) is sent again in a smaller batch, and a job an earlier attempt did
// store is answered by the API as that attempt was (from the stored job, or its dispatch receipt once SQS has it): no
// look-up, so a caller allowed only to create jobs retries as safely as one that may read them.
import type { ApiErrorCode } from './errors'
import { DelayQueueApiError } from './errors'
import { idempotencyHeader, newIdempotencyKey } from './idempotency-key'
import type { JobWithId } from './own-job'
import { call, retryDelayMs, sleep, type Transport } from './transport'
import type { BatchResult } from './types'

/** Per-job refusals that say nothing about the job itself: the same job may succeed a moment later. */
const PASSING: ReadonlySet<ApiErrorCode> = new Set(['ServiceUnavailable', 'ReplicationUnconfirmed', 'TooManyRequests'])

export async function scheduleBatch(
  t: Transport,
  jobs: readonly JobWithId[],
  onAnswer?: (status: number, headers: Headers) => void,
): Promise<BatchResult[]> {
  const headers = idempotencyHeader(newIdempotencyKey())
  // One HTTP attempt per round: a batch refused or unanswered as a whole is sent again by the rounds below, with only
  // the jobs that have no result yet.
  const once: Transport = { ...t, retry: { ...t.retry, attempts: 1 } }
  const results: BatchResult[] = new Array(jobs.length)
  let pending = jobs.map((_, i) => i)
  for (let round = 1; pending.length > 0; round++) {
    let answer: Awaited<ReturnType<typeof call>> | undefined
    let failure: unknown
    try {
      const body = { jobs: pending.map((i) => jobs[i]) }
      answer = await call(once, 'POST', '/jobs/batch', body, { retryUnanswered: true, headers, onAnswer })
    } catch (e) {
      failure = e
    }
    const again: number[] = []
    if (!answer) {
      if (round < t.retry.attempts && passingFailure(failure)) again.push(...pending)
      // A later round that fails as a whole must not hide what the earlier rounds stored: those keep their results,
      // the rest carry the failure (and their ids, so that the caller can look them up or send them again).
      else if (round === 1 || !(failure instanceof DelayQueueApiError)) throw failure
      else
        for (const i of pending)
          results[i] = { id: jobs[i]!.id, error: { code: failure.code, message: failure.message } }
    } else {
      ;(answer.body.results as BatchResult[]).forEach((result, k) => {
        const i = pending[k]!
        if (!('error' in result)) results[i] = { id: jobs[i]!.id, status: 'scheduled' }
        else if (PASSING.has(result.error.code) && round < t.retry.attempts) again.push(i)
        else results[i] = { ...result, id: jobs[i]!.id }
      })
    }
    if (again.length > 0) await sleep(retryDelayMs(t.retry, round, null))
    pending = again
  }
  return results
}

/** A batch refused as a whole for a passing reason (503, 429), or never answered: the rounds send it again. */
function passingFailure(e: unknown): boolean {
  if (e instanceof DelayQueueApiError) return e.status === 503 || e.status === 429
  return e instanceof Error
}
