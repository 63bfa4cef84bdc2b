// The tag calls: GET /jobs?tag= (a page of the jobs with a tag) and DELETE /jobs?tag=, which cancels within the API's
// time budget and answers `done: false` when jobs are left: called again until done, the totals added up.
import { call, type Transport } from './transport'
import type * as Api from './types'

export async function listByTag(
  t: Transport,
  tag: string,
  options: { limit?: number; cursor?: string | null },
): Promise<Api.TagPage> {
  const query = new URLSearchParams({ tag })
  if (options.cursor) query.set('cursor', options.cursor)
  if (options.limit !== undefined) query.set('limit', String(options.limit))
  return (await call(t, 'GET', `/jobs?${query}`)).body
}

/** `inFlight` adds up each call's count of jobs being sent: one found in flight twice counts twice. */
export async function cancelByTag(t: Transport, tag: string): Promise<Api.TagCancelResult> {
  const total = { cancelled: 0, inFlight: 0 }
  for (;;) {
    const { body } = await call(t, 'DELETE', `/jobs?${new URLSearchParams({ tag })}`)
    total.cancelled += body.cancelled
    total.inFlight += body.inFlight
    if (body.done) return { ...total, done: true }
  }
}
