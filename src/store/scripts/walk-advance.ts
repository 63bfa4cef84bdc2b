// lua/walk-advance.lua's whole contract on the TypeScript side: the call (KEYS and ARGV by name, in the header's
// order) and its replies (WalkAdvanceStatus).
import type { ShardKeys } from '../keys'
import type { ScriptCall } from '../scripts'

export interface WalkAdvanceParams {
  walk: string
  /** The position the page started from, as it read it. */
  held: string
  /** The page's end; "" when the walk ended. */
  next: string
  ttlMs: number
  /** Buckets whose bound goes up, and the bound. */
  raise: readonly { bucketNo: string; bound: number }[]
  /** Buckets with nothing after the page's end. */
  forget: readonly string[]
}

/** lua/walk-advance.lua's replies. */
export enum WalkAdvanceStatus {
  Written = 1,
  /** The walk no longer holds the position the page started from: nothing written. */
  NotHeld = 0,
}

/** lua/walk-advance.lua: 1 when written, 0 when the walk no longer holds `held` (nothing written). */
export function walkAdvanceCall(shard: ShardKeys, p: WalkAdvanceParams): ScriptCall<number> {
  return {
    script: 'sdqWalkAdvance',
    keys: {
      walks: shard.pendingWalks,
      reserved: shard.pendingWalkBytes,
      frontier: shard.pendingWalk(p.walk),
      at: shard.pendingWalkAt(p.walk),
    },
    args: {
      walk: p.walk,
      held: p.held,
      next: p.next,
      ttlMs: p.ttlMs,
      raised: p.raise.length,
      updates: [...p.raise.flatMap((r) => [r.bound, r.bucketNo]), ...p.forget],
    },
  }
}
