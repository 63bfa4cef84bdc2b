// at() expressions read as wall-clock times in their zone, and the ids that name a schedule's job (pure units).
import { describe, expect, it } from 'vitest'
import { atExpressionMs } from '../../src/scheduler-api/at-expression'
import { SchedulerValidationError } from '../../src/scheduler-api/errors'
import { engineId } from '../../src/scheduler-api/job-id'

describe('at() expressions', () => {
  it('reads the time in UTC by default and in ScheduleExpressionTimezone when given, summer and winter', () => {
    expect(atExpressionMs('at(2027-01-15T09:00:00)')).toBe(Date.parse('2027-01-15T09:00:00Z'))
    expect(atExpressionMs('at(2027-01-15T09:00:00)', 'Europe/Berlin')).toBe(Date.parse('2027-01-15T08:00:00Z'))
    expect(atExpressionMs('at(2027-07-15T09:00:00)', 'Europe/Berlin')).toBe(Date.parse('2027-07-15T07:00:00Z'))
    expect(atExpressionMs('at(2027-07-15T09:00:00)', 'America/New_York')).toBe(Date.parse('2027-07-15T13:00:00Z'))
    expect(atExpressionMs('at(2027-12-31T23:59:59)', 'Asia/Kolkata')).toBe(Date.parse('2027-12-31T18:29:59Z'))
  })

  it('refuses what is not a calendar time, or a zone that does not exist', () => {
    for (const bad of [
      'at(2027-02-29T10:00:00)',
      'at(2027-01-01T24:00:00)',
      'at(2027-01-01 10:00:00)',
      'at(2027-01-01)',
    ])
      expect(() => atExpressionMs(bad), bad).toThrow(SchedulerValidationError)
    expect(() => atExpressionMs('at(2027-01-01T10:00:00)', 'Mars/Olympus')).toThrow(/ScheduleExpressionTimezone/)
  })
})

describe("a schedule's engine id", () => {
  it('names group and schedule readably, and a pair too long for an id by a digest that no readable id can take', () => {
    expect(engineId('default', 'order-42')).toBe('scheduler:default:order-42')
    const long = engineId('g'.repeat(64), 'n'.repeat(64))
    expect(long).toMatch(/^scheduler::[0-9a-f]{40}$/)
    expect(engineId('g'.repeat(64), 'm'.repeat(64))).not.toBe(long)
    expect(engineId('g'.repeat(40), 'n'.repeat(49))).toHaveLength(100)
  })
})
