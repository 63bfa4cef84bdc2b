// Next-run arithmetic and schedule input rules: pure functions, fixed dates, no waiting.
import { describe, expect, it } from 'vitest'
import { validateSchedule } from '../../src/direct/schedule-validation'
import { nextOccurrence, type Recurrence } from '../../src/recurrence/recurrence'
import { refusalOf } from '../support/validation'
import { PayloadTooLargeError } from '../../src/errors'
import { expectedMessageBytes } from '../../src/sqs/envelope'
import { occurrenceId } from '../../src/recurrence/occurrence-id'
import { MAX_SCHEDULE_TIME_MS } from '../../src/recurrence/time-bounds'

const config = { queues: { orders: 'http://127.0.0.1:9/q/orders' }, maxMessageBytes: 262_144 }
const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString())

/** The next `n` occurrences after `fromIso`, as ISO strings. */
function runs(rule: Recurrence, fromIso: string, n: number): (string | null)[] {
  const out: (string | null)[] = []
  let at = Date.parse(fromIso)
  for (let i = 0; i < n; i++) {
    const next = nextOccurrence(rule, at)
    out.push(iso(next))
    if (next === null) break
    at = next
  }
  return out
}

const detailsOf = (input: unknown) => refusalOf(() => validateSchedule('s', input, config))

describe('recurrence', () => {
  it('keeps 09:00 Berlin wall-clock time across the spring and autumn DST changes', () => {
    const rule = { cron: '0 9 * * *', timezone: 'Europe/Berlin' }
    // 2027-03-28: CET (UTC+1) -> CEST (UTC+2); 2027-10-31: back to CET
    expect(runs(rule, '2027-03-26T12:00:00Z', 3)).toEqual([
      '2027-03-27T08:00:00.000Z',
      '2027-03-28T07:00:00.000Z',
      '2027-03-29T07:00:00.000Z',
    ])
    expect(runs(rule, '2027-10-29T12:00:00Z', 3)).toEqual([
      '2027-10-30T07:00:00.000Z',
      '2027-10-31T08:00:00.000Z',
      '2027-11-01T08:00:00.000Z',
    ])
  })

  it('runs a time in the spring-forward gap at the end of the gap, and a repeated time once (documented rule)', () => {
    const rule = { cron: '30 2 * * *', timezone: 'Europe/Berlin' }
    // 02:30 does not exist on 2027-03-28 (02:00 -> 03:00): 03:00 CEST = 01:00Z
    expect(runs(rule, '2027-03-27T12:00:00Z', 2)).toEqual(['2027-03-28T01:00:00.000Z', '2027-03-29T00:30:00.000Z'])
    // 02:30 happens twice on 2027-10-31: once, the first (CEST, 00:30Z)
    expect(runs(rule, '2027-10-30T12:00:00Z', 2)).toEqual(['2027-10-31T00:30:00.000Z', '2027-11-01T01:30:00.000Z'])
  })

  it('reads a 6-field cron with seconds first, and weekdays in the zone', () => {
    expect(runs({ cron: '*/15 * * * * *', timezone: 'UTC' }, '2027-01-04T09:00:00Z', 2)).toEqual([
      '2027-01-04T09:00:15.000Z',
      '2027-01-04T09:00:30.000Z',
    ])
    // Friday 2027-01-08 09:00 New York (EST, UTC-5), then Monday
    expect(runs({ cron: '0 9 * * MON-FRI', timezone: 'America/New_York' }, '2027-01-08T13:00:00Z', 2)).toEqual([
      '2027-01-08T14:00:00.000Z',
      '2027-01-11T14:00:00.000Z',
    ])
  })

  it('counts a fixed rate from its anchor, within startAt and endAt', () => {
    const rule = {
      everyMs: 60_000,
      timezone: 'UTC',
      anchorMs: Date.parse('2027-01-01T00:00:00Z'),
      endAtMs: Date.parse('2027-01-01T00:02:00Z'),
    }
    expect(runs(rule, '2026-12-31T23:00:00Z', 4)).toEqual([
      '2027-01-01T00:00:00.000Z',
      '2027-01-01T00:01:00.000Z',
      '2027-01-01T00:02:00.000Z',
      null,
    ])
    expect(iso(nextOccurrence(rule, Date.parse('2027-01-01T00:00:30Z')))).toBe('2027-01-01T00:01:00.000Z')
    const cron = { cron: '0 9 * * *', timezone: 'UTC', startAtMs: Date.parse('2027-02-01T09:00:00Z') }
    expect(runs(cron, '2027-01-01T00:00:00Z', 1)).toEqual(['2027-02-01T09:00:00.000Z'])
  })
})

describe('schedule input rules', () => {
  it('names the cron field that is wrong', () => {
    expect(detailsOf({ queue: 'orders', payload: 1, cron: '0 25 * * *' })).toEqual([
      {
        path: 'cron',
        message: 'field 2 (hour) "25" is invalid: values 0-23, as lists (,) ranges (-) and steps (*/n or a-b/n)',
      },
    ])
    expect(detailsOf({ queue: 'orders', payload: 1, cron: '0 9 * * FUNDAY' })[0]!.message).toMatch(
      /^field 5 \(day of week\) "FUNDAY"/,
    )
    expect(detailsOf({ queue: 'orders', payload: 1, cron: '*/0 * * * * *' })[0]!.message).toMatch(
      /^field 1 \(second\) "\*\/0"/,
    )
    expect(detailsOf({ queue: 'orders', payload: 1, cron: '* * *' })[0]!.message).toMatch(/must have 5 fields .* got 3/)
  })

  it('refuses a rate under 1 s, both or neither rule, an unknown zone and an end before the start', () => {
    expect(detailsOf({ queue: 'orders', payload: 1, everyMs: 999 })).toEqual([
      { path: 'everyMs', message: 'must be an integer from 1000 to 315360000000 (3650 days)' },
    ])
    expect(detailsOf({ queue: 'orders', payload: 1, everyMs: 1000, cron: '* * * * *' })).toEqual([
      { path: 'everyMs', message: 'give exactly one of cron and everyMs' },
    ])
    expect(detailsOf({ queue: 'orders', payload: 1 })).toEqual([
      { path: 'cron', message: 'give exactly one of cron and everyMs' },
    ])
    expect(detailsOf({ queue: 'orders', payload: 1, everyMs: 1000, timezone: 'Mars/Olympus' })[0]!.path).toBe(
      'timezone',
    )
    expect(
      detailsOf({
        queue: 'orders',
        payload: 1,
        everyMs: 1000,
        startAt: '2027-01-02T00:00:00Z',
        endAt: '2027-01-01T00:00:00Z',
      }),
    ).toEqual([{ path: 'endAt', message: 'must not be before startAt' }])
    expect(detailsOf({ queue: 'orders', payload: 1, everyMs: 1000, every: 5 })[0]).toMatchObject({ path: 'every' })
  })
  it('counts the tags toward the size of its occurrences’ messages (they carry them)', () => {
    // prepare: a payload whose occurrence message fits the limit exactly without tags
    const input = { queue: 'orders', everyMs: 60_000 }
    const id = occurrenceId('s', MAX_SCHEDULE_TIME_MS)
    const fits = 'x'.repeat(262_144 - expectedMessageBytes(id, 'orders', '""'))
    expect(validateSchedule('s', { ...input, payload: fits }, config).payloadJson).toHaveLength(fits.length + 2)
    // act + assess: with a tag, the same payload is too large
    expect(() => validateSchedule('s', { ...input, payload: fits, tags: ['order:42'] }, config)).toThrow(
      PayloadTooLargeError,
    )
  })
})
