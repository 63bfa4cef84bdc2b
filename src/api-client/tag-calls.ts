// DELETE /jobs?tag= and DELETE /schedules?tag= work within the API's time budget and answer `done: false` when jobs
// or schedules are left: the client calls again until done, and adds up the totals.
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

/** Each call deletes what the one before left: the counts add up to the schedules deleted. */
export async function deleteSchedulesByTag(t: Transport, tag: string): Promise<Api.ScheduleTagDeleteResult> {
  let deleted = 0
  for (;;) {
    const { body } = await call(t, 'DELETE', `/schedules?${new URLSearchParams({ tag })}`)
    deleted += body.deleted
    if (body.done) return { deleted, done: true }
  }
}
