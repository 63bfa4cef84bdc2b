// The stored form of a recurring schedule: one hash field per schedule, written by lua/schedule-put.lua and updated
// by lua/schedule-ack.lua (which rewrites only the header's first four lines).
//
//   "<version>\n<pending occurrence ms or ''>\n<runs>\n<last run ms or ''>\n<createdAt ms>\n<spec JSON>\n<payload JSON>"
//
// The header is what Lua reads and writes; the spec (rule, queue, group) is opaque to Lua and read only here.
// JSON.stringify never emits a raw newline, so neither JSON part needs escaping.

/** What a schedule is, as validated (src/direct/schedule-validation.ts). Times are epoch ms. */
export interface ScheduleSpec {
  queue: string
  cron?: string
  everyMs?: number
  timezone: string
  startAtMs?: number
  endAtMs?: number
  paused: boolean
  groupId?: string
  /** Up to 10 tags (src/direct/tag-rules.ts): each occurrence carries them, as a job's own. */
  tags?: string[]
  /** everyMs only: the instant the rate counts from. */
  anchorMs?: number
}

export interface StoredSchedule {
  /** Bumped by every write of the schedule (create, replace, pause, resume); acks check it. */
  version: number
  /** The occurrence that exists as a pending job, or null (paused, ended). */
  pendingMs: number | null
  runs: number
  lastRunMs: number | null
  createdAtMs: number
  spec: ScheduleSpec
  payloadJson: string
}

/** The "\n"-ended lines before the payload (lua/record-heads.lua reads records up to them). */
export const SCHEDULE_HEADER_LINES = 6

export function decodeScheduleRecord(record: string): StoredSchedule {
  const cuts: number[] = []
  let at = -1
  for (let i = 0; i < 6; i++) {
    at = record.indexOf('\n', at + 1)
    if (at < 0) throw new Error('corrupt schedule record')
    cuts.push(at)
  }
  const field = (i: number) => record.slice(i === 0 ? 0 : cuts[i - 1]! + 1, cuts[i])
  const optional = (s: string) => (s === '' ? null : Number(s))
  return {
    version: Number(field(0)),
    pendingMs: optional(field(1)),
    runs: Number(field(2)),
    lastRunMs: optional(field(3)),
    createdAtMs: Number(field(4)),
    spec: JSON.parse(field(5)) as ScheduleSpec,
    payloadJson: record.slice(cuts[5]! + 1),
  }
}
