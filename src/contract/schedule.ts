// A recurring schedule as callers send it and see it (docs/schedules.md). The API side's zod schema
// (src/direct/schedule-validation.ts) takes exactly ScheduleInput (test/api/public-types.test.ts holds them together).

/** What callers send: see docs/schedules.md, "Input". */
export interface ScheduleInput {
  queue: string
  payload: unknown
  cron?: string
  everyMs?: number
  timezone?: string
  startAt?: string | number
  endAt?: string | number
  paused?: boolean
  groupId?: string
  tags?: string[]
}

/** A stored schedule as callers see it: the input (times as ISO) plus nextRunAt, lastRunAt, runs and createdAt. */
export interface ScheduleView {
  id: string
  queue: string
  payload: unknown
  cron?: string
  everyMs?: number
  timezone: string
  startAt?: string
  endAt?: string
  paused: boolean
  groupId?: string
  tags?: string[]
  /** The pending occurrence's time; null when paused or ended. */
  nextRunAt: string | null
  lastRunAt: string | null
  /** Occurrences handed to SQS so far. */
  runs: number
  createdAt: string
}

export interface ScheduleListPage {
  schedules: ScheduleView[]
  /** Pass it back for the next page; null on the last one. */
  cursor: string | null
}
