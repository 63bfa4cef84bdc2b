// The id rules (src/direct/id-rules.ts) and the script error codes (src/errors.ts) each read an id one way: an
// occurrence id is a valid schedule id, "@", and a time, whichever side builds or parses it.
import { describe, expect, it } from 'vitest'
import { SCHEDULE_ID_PATTERN, validateJobRef, validateScheduleId } from '../../src/direct/id-rules'
import {
  OccurrenceOfScheduleError,
  ScheduleChangedError,
  ScheduleNotFoundError,
  ValidationError,
} from '../../src/errors'
import { ScriptErrorCode, scheduleScriptError, scriptError } from '../../src/store/script-errors'
import { occurrenceId } from '../../src/recurrence/occurrence-id'

describe('occurrence ids', () => {
  it.each(['a', 'daily.digest:eu-1_x', 'x'.repeat(100)])(
    'accepts the occurrence of the valid schedule id %s, at the earliest and the latest time',
    (scheduleId) => {
      // prepare
      expect(validateScheduleId(scheduleId)).toBe(scheduleId)
      // act / assess
      for (const atMs of [0, 32_503_679_999_999]) {
        expect(validateJobRef(occurrenceId(scheduleId, atMs))).toBe(occurrenceId(scheduleId, atMs))
      }
    },
  )

  it.each(['', 'x'.repeat(101), 'a b', 'a@b', 'ä'])(
    'refuses an occurrence whose schedule id %j the schedule id rule refuses',
    (scheduleId) => {
      // prepare
      expect(SCHEDULE_ID_PATTERN.test(scheduleId)).toBe(false)
      // act
      const refused = (() => {
        try {
          validateJobRef(occurrenceId(scheduleId, 1_795_648_056_156))
        } catch (e) {
          return e
        }
      })()
      // assess
      expect(refused).toBeInstanceOf(ValidationError)
      expect((refused as ValidationError).details[0]!.message).toMatch(/occurrence id/)
    },
  )
})

describe('script error codes', () => {
  it('names the schedule of an occurrence a cancel refused, read from its id', () => {
    // act
    const error = scriptError(ScriptErrorCode.OccurrenceOfSchedule, occurrenceId('daily', 1_795_648_056_156))
    // assess
    expect(error).toBeInstanceOf(OccurrenceOfScheduleError)
    expect(error).toMatchObject({ jobId: 'daily@1795648056156', scheduleId: 'daily' })
  })

  it('maps the schedule scripts codes by name: 0 not found, -4 changed', () => {
    // act
    const notFound = scheduleScriptError(0, 'daily')
    const changed = scheduleScriptError(-4, 'daily')
    // assess
    expect(ScriptErrorCode.ScheduleNotFound).toBe(0)
    expect(ScriptErrorCode.ScheduleChanged).toBe(-4)
    expect(notFound).toBeInstanceOf(ScheduleNotFoundError)
    expect(changed).toBeInstanceOf(ScheduleChangedError)
    expect(() => scheduleScriptError(ScriptErrorCode.JobDispatching, 'daily')).toThrow(/unknown/)
  })
})
