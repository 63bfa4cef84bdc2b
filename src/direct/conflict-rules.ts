// The rules of onConflict and maxWaitMs in a job's input (src/store/upsert-modes.ts says what each mode does).
import { z } from 'zod'
import { ON_CONFLICT } from '../store/upsert-modes'

const ON_CONFLICT_RULE = `must be one of ${ON_CONFLICT.map((m) => `"${m}"`).join(', ')}`
const MAX_WAIT_RULE = 'must be an integer >= 1'

/** The two fields' shapes, spread into the job input's schema. */
export const conflictFields = {
  onConflict: z.enum(ON_CONFLICT, { error: ON_CONFLICT_RULE }).optional(),
  maxWaitMs: z
    .number({ error: MAX_WAIT_RULE })
    .int({ error: MAX_WAIT_RULE })
    .min(1, { error: MAX_WAIT_RULE })
    .optional(),
}

/** maxWaitMs goes with debounce, and only with it. */
export function conflictRules(
  raw: { onConflict?: string; maxWaitMs?: number },
  horizonMs: number,
  fail: (path: string, message: string) => void,
): void {
  if (raw.onConflict === 'debounce' && raw.maxWaitMs === undefined) fail('maxWaitMs', 'is required with debounce')
  if (raw.onConflict !== 'debounce' && raw.maxWaitMs !== undefined) {
    fail('maxWaitMs', 'is only allowed with onConflict "debounce"')
  }
  if (raw.maxWaitMs !== undefined && raw.maxWaitMs > horizonMs) fail('maxWaitMs', `must be at most ${horizonMs}`)
}
