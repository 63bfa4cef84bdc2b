// A stored schedule as callers see it: the input (times as ISO) plus nextRunAt, lastRunAt, runs and createdAt.
import type { StoredSchedule } from '../store/schedule-record'
import { isoTime } from '../shared/iso-time'
import type { ScheduleListPage, ScheduleView } from '../contract/schedule'

export type { ScheduleListPage, ScheduleView }

/** An optional time field, left out when not set. */
const timeField = (name: string, ms: number | undefined) => (ms === undefined ? {} : { [name]: isoTime(ms) })

export function scheduleView(id: string, s: StoredSchedule): ScheduleView {
  const { spec } = s
  return {
    id,
    queue: spec.queue,
    payload: JSON.parse(s.payloadJson),
    ...(spec.cron !== undefined ? { cron: spec.cron } : { everyMs: spec.everyMs! }),
    timezone: spec.timezone,
    ...timeField('startAt', spec.startAtMs),
    ...timeField('endAt', spec.endAtMs),
    paused: spec.paused,
    ...(spec.groupId !== undefined ? { groupId: spec.groupId } : {}),
    ...(spec.tags?.length ? { tags: spec.tags } : {}),
    nextRunAt: s.pendingMs === null ? null : isoTime(s.pendingMs),
    lastRunAt: s.lastRunMs === null ? null : isoTime(s.lastRunMs),
    runs: s.runs,
    createdAt: isoTime(s.createdAtMs),
  }
}
