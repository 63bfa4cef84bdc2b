// The input types of the package's entry points are derived from the zod schemas that validate them
// (src/direct/validation.ts, schedule-validation.ts): this holds them to the shapes they were written as before, so
// code that compiled against the package still compiles. `npm run typecheck` checks these assertions (vitest does not).
import { describe, expectTypeOf, it } from 'vitest'
import type { JobInput as ApiClientJobInput, ScheduleInput as ApiClientScheduleInput } from '../../src/api-client'
import type { JobInput, ScheduleInput } from '../../src/index'

/** JobInput as it was declared by hand. */
interface JobInputAsWritten {
  queue: string
  payload: unknown
  delayMs?: number
  runAt?: string | number
  id?: string
  groupId?: string
  /** Added with flow control (optional: code written before still compiles). */
  flowKey?: string
  tags?: string[]
  onConflict?: 'reject' | 'replace' | 'extend' | 'debounce'
  maxWaitMs?: number
}

/** ScheduleInput as it was declared by hand. */
interface ScheduleInputAsWritten {
  queue: string
  payload: unknown
  cron?: string
  everyMs?: number
  timezone?: string
  startAt?: string | number
  endAt?: string | number
  paused?: boolean
  groupId?: string
  /** Added with tags on schedules (optional: code written before still compiles). */
  tags?: string[]
}

describe('public input types', () => {
  it('keeps JobInput the shape callers wrote against, on the main and the api-client entry', () => {
    expectTypeOf<JobInput>().toEqualTypeOf<JobInputAsWritten>()
    expectTypeOf<ApiClientJobInput>().toEqualTypeOf<JobInputAsWritten>()
    expectTypeOf<Omit<JobInput, 'id'>>().toEqualTypeOf<Omit<JobInputAsWritten, 'id'>>()
  })

  it('keeps ScheduleInput the shape callers wrote against, on the main and the api-client entry', () => {
    expectTypeOf<ScheduleInput>().toEqualTypeOf<ScheduleInputAsWritten>()
    expectTypeOf<ApiClientScheduleInput>().toEqualTypeOf<ScheduleInputAsWritten>()
  })
})
