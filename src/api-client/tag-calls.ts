// DELETE /jobs?tag= cancels within the API's time budget and answers `done: false` when jobs are left: the client calls
// it again until done, and adds up the totals.
import { call, type Transport } from './transport'
import type * as Api from './types'

/** `inFlight` adds up each call's count of jobs being sent: one found in flight twice counts twice. */
export async function cancelByTag(t: Transport, tag: string): Promise<Api.TagCancelResult> {
  const total = { cancelled: 0, inFlight: 0, recurring: 0 }
  for (;;) {
    const { body } = await call(t, 'DELETE', `/jobs?${new URLSearchParams({ tag })}`)
    total.cancelled += body.cancelled
    total.inFlight += body.inFlight
    total.recurring += body.recurring ?? 0 // a server from before schedule tags does not send it
    if (body.done) return { ...total, done: true }
  }
}
