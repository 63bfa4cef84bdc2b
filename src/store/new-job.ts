// A validated job, ready to store (see src/direct/validation.ts for how input becomes one): what the job store takes,
// and (with the write's mode) what lua/enqueue.lua receives (EnqueueParams in src/store/scripts/enqueue.ts).
import type { OnConflict } from './upsert-modes'

export interface NewJob {
  id: string
  queue: string
  /** The payload as JSON text. */
  payloadJson: string
  groupId?: string
  /** What the write does to a stored job with its id (src/store/upsert-modes.ts); absent: the call's default. */
  onConflict?: OnConflict
  /** With onConflict debounce: how long after its first write the job is due at the latest. */
  maxWaitMs?: number
  /** Its tags (src/direct/tag-rules.ts); absent or empty: none. */
  tags?: readonly string[]
  /** Its flow key (docs/flow-control.md); absent: none, and no byte stored for it. */
  flowKey?: string
  /** Relative to Redis's clock, or absolute (epoch ms; the past means now). */
  due: { delayMs: number } | { atMs: number }
  /**
   * The write token (Idempotency-Key, src/direct/write-token.ts): the same on every attempt of one call, so that an
   * attempt after one that was applied changes nothing and answers as that one did. Absent: none (nothing stored).
   */
  writeToken?: string
  /** A creation time to keep (a DLQ redrive keeps the job's original one); absent: now. */
  createdAtMs?: number
}
