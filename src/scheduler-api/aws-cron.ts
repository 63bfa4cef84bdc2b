// EventBridge Scheduler's `cron(minutes hours day-of-month month day-of-week year)` and `rate(value unit)` in our
// recurring schedules' terms: a 5-field cron (croner's, src/recurrence/recurrence.ts) and everyMs. AWS numbers the days
// of the week 1-7 from Sunday, croner 0-6: numbers move down by one; names (MON-FRI) are the same in both. What has
// no equal here (the W of day-of-month, a year other than *) is refused by name rather than run differently.
import { SchedulerValidationError } from './errors'

const CRON = /^cron\((.*)\)$/
const RATE = /^rate\((\d+) (minutes?|hours?|days?)\)$/
const UNIT_MS: Record<string, number> = { minute: 60_000, hour: 3_600_000, day: 86_400_000 }

const invalid = (expression: string, why: string): never => {
  throw new SchedulerValidationError(`Invalid ScheduleExpression "${expression}": ${why}.`)
}

/** everyMs of a rate() expression. */
export function rateEveryMs(expression: string): number {
  const m = RATE.exec(expression)
  if (!m) return invalid(expression, 'expected rate(value unit), unit one of minute(s), hour(s), day(s)')
  const value = Number(m[1])
  if (value < 1) invalid(expression, 'the value must be a positive whole number')
  return value * UNIT_MS[m[2]!.replace(/s$/, '')]!
}

/** The 5-field cron our recurring schedules run for an AWS cron() expression. */
export function cronPattern(expression: string): string {
  const m = CRON.exec(expression)
  const fields = m ? m[1]!.trim().split(/\s+/) : []
  if (fields.length !== 6)
    return invalid(expression, 'expected cron(minutes hours day-of-month month day-of-week year)')
  const [minutes, hours, dayOfMonth, month, dayOfWeek, year] = fields as [
    string,
    string,
    string,
    string,
    string,
    string,
  ]
  if (year !== '*') invalid(expression, 'a year other than * is not supported here')
  if (dayOfMonth.includes('W')) invalid(expression, 'W (nearest weekday) in day-of-month is not supported here')
  if ((dayOfMonth === '?') === (dayOfWeek === '?')) {
    invalid(expression, 'exactly one of day-of-month and day-of-week must be ?')
  }
  const dom = dayOfMonth === '?' ? '*' : dayOfMonth
  const dow =
    dayOfWeek === '?'
      ? '*'
      : dayOfWeek
          .split(',')
          .map((item) => shiftWeekday(item, expression))
          .join(',')
  return `${minutes} ${hours} ${dom} ${month} ${dow}`
}

/** "2-6" -> "1-5", "6#3" -> "5#3", "6L" -> "5L", "MON-FRI" unchanged. */
function shiftWeekday(item: string, expression: string): string {
  const m = /^(\d)(?:-(\d))?(.*)$/.exec(item)
  if (!m) return item
  const day = (d: string) => {
    const n = Number(d)
    if (n < 1 || n > 7) invalid(expression, 'day-of-week numbers run from 1 (Sunday) to 7 (Saturday)')
    return String(n - 1)
  }
  return `${day(m[1]!)}${m[2] ? `-${day(m[2])}` : ''}${m[3]}`
}
