// lua/walk-start.lua's whole contract on the TypeScript side: the call (KEYS and ARGV by name, in the header's
// order) and its replies (WalkStartStatus, or "full").
import type { ShardKeys } from '../keys'
import type { ScriptCall } from '../scripts'

export interface WalkStartParams {
  walk: string
  position: string
  ttlMs: number
  maxWalks: number
  /** What a frontier costs per bucket of the index. */
  bytesPerBucket: number
  /** What the shard's frontiers hold together at most. */
  budgetBytes: number
  /** No copy takes the node's used_memory to this share of maxmemory (0: no such check). */
  memoryPercent: number
  /** A walk unused this long may be dropped to make room in the budget. */
  idleMs: number
  /** The shard's walks, least recently used first: those the cap or the budget needs gone are dropped. */
  candidates: readonly string[]
}

/** lua/walk-start.lua's numeric replies ("full" when there is no room). */
export enum WalkStartStatus {
  Made = 1,
  /** The walk holds a position already. */
  Held = 0,
}

/**
 * lua/walk-start.lua: 1 when the walk's frontier was made on the shard, 0 when the walk holds a position already,
 * "full" when there is no room (the cap of walks, the budget, the node's memory).
 */
export function walkStartCall(shard: ShardKeys, p: WalkStartParams): ScriptCall<number | 'full'> {
  return {
    script: 'sdqWalkStart',
    keys: {
      index: shard.index,
      walks: shard.pendingWalks,
      reserved: shard.pendingWalkBytes,
      frontier: shard.pendingWalk(p.walk),
      at: shard.pendingWalkAt(p.walk),
      candidates: p.candidates.flatMap((w) => [shard.pendingWalk(w), shard.pendingWalkAt(w)]),
    },
    args: {
      walk: p.walk,
      position: p.position,
      ttlMs: p.ttlMs,
      maxWalks: p.maxWalks,
      bytesPerBucket: p.bytesPerBucket,
      budgetBytes: p.budgetBytes,
      memoryPercent: p.memoryPercent,
      idleMs: p.idleMs,
      candidateWalks: p.candidates,
    },
  }
}
