// Call builders of the scripts of the operator reads (src/ops/, and the pending pages of GET /jobs), beside
// src/store/script-calls.ts and in the same form: KEYS and ARGV by name, in the order of the script's header.
import type { ShardKeys } from './keys'
import type { ScriptCall } from './scripts'

/** lua/record-heads.lua: { head, payloadBytes, ... } for the first ids, as far as the budget went. */
export type RecordHeadsReply = (string | number)[]

export interface RecordHeadsParams {
  /** The "\n"-ended lines before a record's payload (RECORD_HEADER_LINES, SCHEDULE_HEADER_LINES). */
  headerLines: number
  /** How much of each payload to return (0: none). */
  previewBytes: number
  /** Bytes of records one call reads at most in Redis (the first record is always read). */
  budgetBytes: number
  ids: readonly string[]
}

/** `records`: a shard's jobs or schedules hash (src/store/keys.ts). */
export function recordHeadsCall(records: string, p: RecordHeadsParams): ScriptCall<RecordHeadsReply> {
  return {
    script: 'sdqRecordHeads',
    keys: { records },
    args: { headerLines: p.headerLines, previewBytes: p.previewBytes, budgetBytes: p.budgetBytes, ids: p.ids },
  }
}

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
