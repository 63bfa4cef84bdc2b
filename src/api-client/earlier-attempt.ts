// Before a create is sent again: did an earlier attempt of this very call store the job? It may have been handed to
// SQS since (gone from Redis: only its dispatch receipt, GET /jobs/{id} status "dispatched", tells), or be about to
// (a job seen dispatching may be gone a moment later). A create without an Idempotency-Key relies on this look-up (and
// on a 409's job being its own); batches carry no key per entry: for their entries sent again it is the only guard.
// A PUT never uses it (reschedule() sends its key again instead): a replace keeps the replaced job's creation time,
// so the look-up cannot recognise one, and a PUT's id is often written by several callers, whose job, created while
// this call waited, the look-up would take for this call's own (and this call's write would be lost).
// A job or receipt found counts as this call's only when it was created after the call began (an older job under the
// id, dispatched while the call waited, was created before it) and is due no earlier than this call could have made
// it due (its runAt, or its creation + delayMs). The comparison is the client's clock against Redis's: a client
// running ahead only misses its own receipt and sends the write again (a create with an id the client made then
// meets its own job: a 409 it recognises, or, dispatched meanwhile, a second copy).
import { scheduledOf, type JobWithId } from './own-job'
import { call, type Answer, type Transport } from './transport'
import type { JobInput, JobView } from './types'

export interface EarlierAttempt {
  view: JobView
  attempts: number
  headers: Headers
}

/** The look-up itself failed (the API unavailable): whether the earlier attempt stored the job is not known. */
export const LOOKUP_FAILED = 'lookup-failed' as const

export async function storedByEarlierAttempt(
  t: Transport,
  job: Pick<JobInput, 'queue' | 'runAt' | 'delayMs'> & { id: string },
  invokedAt: number,
): Promise<EarlierAttempt | undefined | typeof LOOKUP_FAILED> {
  let found: Answer
  try {
    found = await call(t, 'GET', `/jobs/${encodeURIComponent(job.id)}`, undefined, {
      allow: [404],
      retryUnanswered: true,
    })
  } catch {
    return LOOKUP_FAILED
  }
  const view = found.body as JobView | undefined
  if (found.status !== 200 || view?.queue !== job.queue) return undefined
  const asked = job.runAt === undefined ? -Infinity : typeof job.runAt === 'number' ? job.runAt : Date.parse(job.runAt)
  if (view.createdAt === undefined || Date.parse(view.createdAt) < invokedAt) return undefined
  const createdAt = Date.parse(view.createdAt)
  if (Date.parse(view.dueAt ?? view.runAt) < Math.max(createdAt + (job.delayMs ?? 0), asked)) return undefined
  return { view, attempts: found.attempts, headers: found.headers }
}

/** The job an earlier attempt of a create stored under `job.id` (an id the client made), as a create's answer. */
export async function madeByEarlierAttempt(t: Transport, job: JobWithId): Promise<Answer | undefined> {
  const found = await call(t, 'GET', `/jobs/${encodeURIComponent(job.id)}`, undefined, {
    allow: [404],
    retryUnanswered: true,
  }).catch(() => undefined)
  if (found?.status !== 200 || found.body.queue !== job.queue) return undefined
  const view = found.body as JobView
  const runAt = view.dueAt ?? view.runAt
  // A dispatch receipt does not keep the creation time: its due time stands in for it.
  const body = scheduledOf({ ...view, runAt, createdAt: view.createdAt ?? runAt })
  return { status: 201, attempts: found.attempts, headers: found.headers, body }
}

/** The job or receipt an earlier attempt of this create left (storedByEarlierAttempt), as the create's answer. */
export async function answerOfEarlierAttempt(
  t: Transport,
  id: string,
  input: Omit<JobInput, 'id'>,
  invokedAt: number,
): Promise<Answer | undefined> {
  const found = await storedByEarlierAttempt(t, { ...input, id }, invokedAt)
  if (!found || found === LOOKUP_FAILED) return undefined
  const { view, attempts, headers } = found
  const dueAt = view.dueAt ?? view.runAt
  const body = { ...scheduledOf({ ...view, runAt: dueAt, createdAt: view.createdAt ?? dueAt }), id }
  return { status: 201, attempts, headers, body }
}
