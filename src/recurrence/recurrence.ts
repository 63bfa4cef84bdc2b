// When a schedule's occurrences fall: cron expressions in an IANA time zone, or a fixed rate.
//
// Cron arithmetic is croner's. We compared it with cron-parser: both parse 5- and 6-field (seconds) expressions and
// handle IANA zones, but croner has no dependencies (cron-parser pulls in luxon), its errors name the bad field
// ("Invalid value for hour: 25"), and its daylight-saving rule is documented and Vixie-cron-like: a fixed time that
// falls in the spring-forward gap runs at the first valid time after the gap, a fixed time repeated in the autumn
// runs once (first pass). "Fixed" means one value in each of the second, minute and hour fields: a pattern with a
// wildcard, step, list or range in any of them (`0 1-2 * * *`, `0,30 1 * * *`) skips the gap and runs on both
// passes of the repeated hour (measured on croner 11: test/schedule/daylight-saving.test.ts). It is also faster per
// next-run (what the scanner pays per occurrence). Next runs are computed here, in TypeScript: the Lua scripts
// receive them from their callers.
import { Cron } from 'croner'
import type { ErrorDetail } from '../errors'
import { MAX_SCHEDULE_TIME_MS } from './time-bounds'

export interface Recurrence {
  /** 5 fields, or 6 with seconds first. */
  cron?: string
  /** Fixed rate: occurrences at anchorMs + k * everyMs (k >= 0). */
  everyMs?: number
  /** IANA zone the cron fields are read in. */
  timezone: string
  /** First possible occurrence (inclusive), epoch ms. */
  startAtMs?: number
  /** Last possible occurrence (inclusive), epoch ms. */
  endAtMs?: number
  /** everyMs only: the instant the rate counts from (startAt, or the time the schedule was written + everyMs). */
  anchorMs?: number
}

const FIELDS_5 = ['minute', 'hour', 'day of month', 'month', 'day of week']
const FIELDS_6 = ['second', ...FIELDS_5]
// What each field accepts, for messages: the library's own wording is sometimes off by one (it reports month 13
// as "12").
const FIELD_RULES: Record<string, string> = {
  second: '0-59',
  minute: '0-59',
  hour: '0-23',
  'day of month': '1-31, L, or nW',
  month: '1-12 or JAN-DEC',
  'day of week': '0-7 or SUN-SAT (0 and 7 are Sunday), n#k, or nL',
}

// Compiled patterns, reused: the scanner computes a next run per occurrence. Cleared when it grows (many schedules
// share few distinct patterns).
const compiled = new Map<string, Cron>()

function cronFor(pattern: string, timezone: string): Cron {
  const key = `${timezone} ${pattern}`
  let cron = compiled.get(key)
  if (!cron) {
    if (compiled.size >= 1000) compiled.clear()
    cron = new Cron(pattern, { timezone, paused: true, mode: '5-or-6-parts' })
    compiled.set(key, cron)
  }
  return cron
}

/**
 * The first occurrence strictly after `afterMs` (and within startAt..endAt), or null when there is none: the series
 * has ended, also when the next one would be past MAX_SCHEDULE_TIME_MS (src/recurrence/time-bounds.ts). Never throws:
 * the scanner calls it for every occurrence it acknowledges.
 */
export function nextOccurrence(rule: Recurrence, afterMs: number): number | null {
  const from = rule.startAtMs !== undefined ? Math.max(afterMs, rule.startAtMs - 1) : afterMs
  if (!(from < MAX_SCHEDULE_TIME_MS)) return null
  let next: number | null
  if (rule.everyMs !== undefined) {
    const anchor = rule.anchorMs ?? rule.startAtMs ?? 0
    next = from < anchor ? anchor : anchor + (Math.floor((from - anchor) / rule.everyMs) + 1) * rule.everyMs
  } else {
    try {
      next = cronFor(rule.cron!, rule.timezone).nextRun(new Date(from))?.getTime() ?? null
    } catch {
      next = null // a pattern validation accepted but the library cannot follow this far: the series ends
    }
  }
  const end = Math.min(rule.endAtMs ?? MAX_SCHEDULE_TIME_MS, MAX_SCHEDULE_TIME_MS)
  if (next === null || !Number.isSafeInteger(next) || next > end) return null
  return next
}

/** Is this an IANA time zone name the runtime knows? */
export function isTimeZone(name: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: name })
    return true
  } catch {
    return false
  }
}

/**
 * Problems with a cron expression, each naming the field: "field 2 (hour): Invalid value for hour: 25". Each field
 * is tried on its own (all others "*") so the message points at the culprit even when the library's does not.
 */
export function cronProblems(pattern: string, timezone: string): ErrorDetail[] {
  const parts = pattern.trim().split(/\s+/)
  if (parts.length !== 5 && parts.length !== 6) {
    return [
      {
        path: 'cron',
        message: `must have 5 fields (minute hour day-of-month month day-of-week), or 6 with seconds first; got ${parts.length}`,
      },
    ]
  }
  const names = parts.length === 6 ? FIELDS_6 : FIELDS_5
  const problems: ErrorDetail[] = []
  parts.forEach((part, i) => {
    const probe = parts.map((p, j) => (j === i ? p : '*')).join(' ')
    const error = tryCron(probe, 'UTC')
    const name = names[i]!
    if (error) {
      problems.push({
        path: 'cron',
        message: `field ${i + 1} (${name}) "${part}" is invalid: values ${FIELD_RULES[name]}, as lists (,) ranges (-) and steps (*/n or a-b/n)`,
      })
    }
  })
  if (problems.length === 0) {
    const error = tryCron(pattern, timezone)
    if (error) problems.push({ path: 'cron', message: error })
    else if (cronFor(pattern, timezone).nextRun() === null)
      problems.push({ path: 'cron', message: 'never matches a date' })
  }
  return problems
}

function tryCron(pattern: string, timezone: string): string | null {
  try {
    cronFor(pattern, timezone)
    return null
  } catch (e) {
    return (e instanceof Error ? e.message : String(e)).replace(/^CronPattern:\s*/, '')
  }
}
