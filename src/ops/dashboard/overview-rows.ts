// The rows of the dashboard's overview, as the server answers them (overview.ts) and the page reads them
// (client/api.ts): one declaration for both, in a file that imports nothing, so the browser bundle takes no server code.

export interface QueueRow {
  /** Scheduled, not yet claimed. */
  pending: number
  /** Leased to a scanner, or waiting for a dispatch retry. */
  inFlight: number
  dead: number
  dispatched: number
}

/** Scheduled jobs by when they are due: each count includes the shorter horizons. */
export interface DueTimeline {
  overdue: number
  minute: number
  hour: number
  day: number
  month: number
  /** Every scheduled job, whenever due. */
  all: number
}

export interface ScheduleRow {
  id: string
  queue: string
  cron?: string
  everyMs?: number
  timezone: string
  paused: boolean
  nextRunAt: string | null
  lastRunAt: string | null
  /** Occurrences handed to SQS so far. */
  runs: number
  /** The schedule's tags, when it has some. */
  tags?: string[]
}
