// Daylight-saving days on fixed dates in two zones, for fixed times, lists, ranges and steps in the time fields: the
// rule docs/schedules.md states ("fixed" = one value in each of second, minute and hour; anything else runs on both
// passes of a repeated hour and skips a gap), as croner computes it.
import { describe, expect, it } from 'vitest'
import { nextOccurrence } from '../../src/recurrence/recurrence'
import { MAX_SCHEDULE_TIME_MS } from '../../src/recurrence/time-bounds'

/** Every occurrence from `fromIso` for `hours`, as UTC "HH:MM". */
function day(cron: string, timezone: string, fromIso: string, hours = 12): string[] {
  const out: string[] = []
  const end = Date.parse(fromIso) + hours * 3_600_000
  let at = Date.parse(fromIso)
  for (;;) {
    const next = nextOccurrence({ cron, timezone }, at)
    if (next === null || next > end) return out
    out.push(new Date(next).toISOString().slice(11, 16))
    at = next
  }
}

// America/New_York: 2026-11-01 01:00-02:00 happens twice (EDT 05:00-06:00Z, then EST 06:00-07:00Z);
// 2027-03-14 02:00-03:00 does not happen (EST 07:00Z is 03:00 EDT).
// Europe/Berlin: 2026-10-25 02:00-03:00 happens twice (CEST 00:00-01:00Z, then CET 01:00-02:00Z);
// 2027-03-28 02:00-03:00 does not happen (CET 01:00Z is 03:00 CEST).
const NY_AUTUMN = ['America/New_York', '2026-11-01T04:00:00Z'] as const
const BERLIN_AUTUMN = ['Europe/Berlin', '2026-10-24T23:00:00Z'] as const
const NY_SPRING = ['America/New_York', '2027-03-14T05:00:00Z'] as const
const BERLIN_SPRING = ['Europe/Berlin', '2027-03-27T23:00:00Z'] as const

describe('daylight saving: the repeated hour', () => {
  it('a fixed time (one minute, one hour) runs once, on the first pass', () => {
    expect(day('0 1 * * *', ...NY_AUTUMN)).toEqual(['05:00'])
    expect(day('30 1 * * *', ...NY_AUTUMN)).toEqual(['05:30'])
    expect(day('0 2 * * *', ...BERLIN_AUTUMN)).toEqual(['00:00'])
    expect(day('0 30 2 * * *', ...BERLIN_AUTUMN)).toEqual(['00:30'])
  })

  it('a list or a range in the hour runs on both passes', () => {
    expect(day('0 1-2 * * *', ...NY_AUTUMN)).toEqual(['05:00', '06:00', '07:00'])
    expect(day('0 1,2 * * *', ...NY_AUTUMN)).toEqual(['05:00', '06:00', '07:00'])
    expect(day('30 1,5 * * *', ...NY_AUTUMN)).toEqual(['05:30', '06:30', '10:30'])
    expect(day('0 2-3 * * *', ...BERLIN_AUTUMN)).toEqual(['00:00', '01:00', '02:00'])
    expect(day('0 2,5 * * *', ...BERLIN_AUTUMN)).toEqual(['00:00', '01:00', '04:00'])
  })

  it('a list, a range or a step in the minute runs on both passes', () => {
    expect(day('0,30 1 * * *', ...NY_AUTUMN)).toEqual(['05:00', '05:30', '06:00', '06:30'])
    expect(day('*/30 1 * * *', ...NY_AUTUMN)).toEqual(['05:00', '05:30', '06:00', '06:30'])
    expect(day('0-59/30 2 * * *', ...BERLIN_AUTUMN)).toEqual(['00:00', '00:30', '01:00', '01:30'])
  })
})

describe('daylight saving: the skipped hour', () => {
  it('a fixed time in the gap runs at the first valid time after it', () => {
    expect(day('30 2 * * *', ...NY_SPRING)).toEqual(['07:00'])
    expect(day('30 2 * * *', ...BERLIN_SPRING)).toEqual(['01:00'])
  })

  it('a list, a range or a step skips the gap', () => {
    expect(day('0 2,5 * * *', ...NY_SPRING)).toEqual(['09:00'])
    expect(day('0,30 2 * * *', ...NY_SPRING)).toEqual([])
    expect(day('0 2,5 * * *', ...BERLIN_SPRING)).toEqual(['03:00'])
    expect(day('*/30 2 * * *', ...BERLIN_SPRING)).toEqual([])
    expect(day('0 1-3 * * *', ...BERLIN_SPRING)).toEqual(['00:00', '01:00'])
  })
})

describe('the end of time', () => {
  it('a series ends at the time bound: no next run past 2999-12-31T23:59:59.999Z', () => {
    expect(nextOccurrence({ everyMs: 1000, timezone: 'UTC', startAtMs: MAX_SCHEDULE_TIME_MS }, 0)).toBe(
      MAX_SCHEDULE_TIME_MS,
    )
    expect(
      nextOccurrence({ everyMs: 1000, timezone: 'UTC', startAtMs: MAX_SCHEDULE_TIME_MS }, MAX_SCHEDULE_TIME_MS),
    ).toBe(null)
    expect(nextOccurrence({ cron: '0 0 1 1 *', timezone: 'UTC' }, MAX_SCHEDULE_TIME_MS - 1000)).toBe(null)
    expect(nextOccurrence({ cron: '0 0 1 1 *', timezone: 'UTC' }, Number.MAX_SAFE_INTEGER)).toBe(null)
  })
})
