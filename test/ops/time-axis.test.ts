// The dashboard's lateness chart labels its time axis in UTC, one line per label.
import { describe, expect, it } from 'vitest'
import { TICK_SPACE_PX, utcTicks } from '../../src/ops/dashboard/browser/time-axis'

describe('the lateness chart time axis', () => {
  it('labels ticks in UTC, minutes alone on whole minutes, seconds otherwise, with room for each label', () => {
    // prepare: 01:40:00 and 01:41:00 UTC, then the same with 30 s ticks
    const minute = Date.UTC(2026, 10, 26, 1, 40) / 1000
    // act / assess
    expect(utcTicks([minute, minute + 60])).toEqual(['01:40', '01:41'])
    expect(utcTicks([minute, minute + 30])).toEqual(['01:40:00', '01:40:30'])
    expect(TICK_SPACE_PX).toBeGreaterThanOrEqual(70)
  })
})
