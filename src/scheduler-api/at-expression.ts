// The one-time schedule expression `at(yyyy-mm-ddThh:mm:ss)`: a wall-clock time in ScheduleExpressionTimezone (UTC by
// default), with second precision as EventBridge Scheduler defines it. Turned into the epoch ms our job is due at.
import { SchedulerValidationError } from './errors'

const AT = /^at\((\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})\)$/

/** Throws a ValidationException naming the field for a bad zone. */
export function checkTimezone(zone: string): void {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone })
  } catch {
    throw new SchedulerValidationError(`Invalid ScheduleExpressionTimezone: "${zone}" is not an IANA time zone.`)
  }
}

/** Epoch ms of an at() expression read in `zone`. */
export function atExpressionMs(expression: string, zone = 'UTC'): number {
  const m = AT.exec(expression)
  if (!m)
    throw new SchedulerValidationError(`Invalid ScheduleExpression "${expression}": expected at(yyyy-mm-ddThh:mm:ss).`)
  const [y, mo, d, h, mi, s] = m.slice(1).map(Number) as [number, number, number, number, number, number]
  const wall = Date.UTC(y, mo - 1, d, h, mi, s)
  const check = new Date(wall)
  if (check.getUTCMonth() !== mo - 1 || check.getUTCDate() !== d || h > 23 || mi > 59 || s > 59) {
    throw new SchedulerValidationError(`Invalid ScheduleExpression "${expression}": not a calendar date and time.`)
  }
  checkTimezone(zone)
  // The zone's offset at that instant, found twice: the second pass settles times next to a daylight-saving change.
  let utc = wall - offsetMs(wall, zone)
  utc = wall - offsetMs(utc, zone)
  return utc
}

/** How far `zone`'s wall clock is ahead of UTC at the instant `ms`. */
function offsetMs(ms: number, zone: string): number {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone: zone,
    hourCycle: 'h23',
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
  }).formatToParts(new Date(ms))
  const get = (type: string) => Number(parts.find((p) => p.type === type)!.value)
  const asUtc = Date.UTC(get('year'), get('month') - 1, get('day'), get('hour'), get('minute'), get('second'))
  return asUtc - Math.floor(ms / 1000) * 1000
}
