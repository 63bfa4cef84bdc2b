// The input types of the package's entry points are derived from the zod schemas that validate them
// (src/direct/validation.ts, schedule-validation.ts): this holds them to the shapes they were written as before, so
// code that compiled against the package still compiles. `npm run typecheck` checks these assertions (vitest does not).
import { describe, expectTypeOf, it } from 'vitest'
import type { JobInput as ApiClientJobInput, ScheduleInput as ApiClientScheduleInput } from '../../src/api-client'
import type { JobInput, ScheduleInput } from '../../src/index'
import type * as contractFlow from '../../src/contract/flow'
import type { jobInputSchema } from '../../src/direct/validation'
import type { scheduleInputSchema } from '../../src/direct/schedule-validation'
import type { FlowChange } from '../../src/direct/flow-control'
import type { FlowSettingInput, FlowTarget, flowSettingInputSchema } from '../../src/flow/flow-names'
import type { FlowEntry } from '../../src/flow/flow-settings'
import type { z } from 'zod'

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

describe('the contract and the code that implements it', () => {
  it("validates, with the zod schemas, exactly the contract's JobInput and ScheduleInput", () => {
    expectTypeOf<z.input<typeof jobInputSchema>>().toEqualTypeOf<JobInput>()
    expectTypeOf<z.input<typeof scheduleInputSchema>>().toEqualTypeOf<ScheduleInput>()
  })

  it('states the flow types as flow control uses them', () => {
    expectTypeOf<z.input<typeof flowSettingInputSchema>>().toEqualTypeOf<contractFlow.FlowSettingInput>()
    expectTypeOf<FlowSettingInput>().toEqualTypeOf<contractFlow.FlowSettingInput>()
    expectTypeOf<FlowTarget>().toEqualTypeOf<contractFlow.FlowTarget>()
    expectTypeOf<FlowEntry>().toEqualTypeOf<contractFlow.FlowEntry>()
    expectTypeOf<FlowChange>().toEqualTypeOf<contractFlow.FlowChange>()
  })
})
