// lua/release.lua's whole contract on the TypeScript side: the call (KEYS and ARGV by name, in the header's order),
// what a refusal is, and the reply read into named fields (decodeRelease).
import type { ShardKeys } from '../keys'
import type { ScriptCall } from '../scripts'
import type { Settlement } from './ack'

export interface Refusal extends Settlement {
  error: string
  /** Whether the refusal counts against the job's attempts (SQS refused it as the sender's fault). */
  jobsFault: boolean
  /**
   * When to try again (src/scan/claims/backoff.ts): Redis ms, absolute. The scanner fixes it on one clock, not each
   * shard's script: it is also the job's place in its FIFO group's order (lua/release.lua).
   */
  retryAtMs?: number
  /** Without retryAtMs: this long after the release script runs (its own clock). */
  retryInMs?: number
  /** The send failed in a way SQS may still have accepted (a timeout, a reset connection, a server error). */
  maybeSent?: boolean
}

export interface ReleaseParams {
  maxAttempts: number
  /**
   * How far past the script's own clock an absolute retry time may lie; later ones are moved earlier, all by one
   * amount (lua/release.lua). Absent: no bound (times read from the same primary's clock, a claim's).
   */
  maxAheadMs?: number
  refusals: readonly Refusal[]
}

/** lua/release.lua: { released, dead, deadIds (dead or retired), retired }. Read it with decodeRelease. */
export type ReleaseReply = [number, number, string[], number]

/** A release reply, read: how many jobs went back, died or were retired, and the ids of those that left. */
export interface DecodedRelease {
  released: number
  dead: number
  /** The jobs that went to the dead set or were retired (a FIFO group stops waiting for them). */
  deadIds: string[]
  retired: number
}

export function releaseCall(shard: ShardKeys, p: ReleaseParams): ScriptCall<ReleaseReply> {
  return {
    script: 'sdqRelease',
    keys: {
      jobs: shard.jobs,
      inflight: shard.inflight,
      leases: shard.leases,
      errors: shard.errors,
      dead: shard.dead,
      counts: shard.counts,
      schedules: shard.schedules,
      tags: shard.tags,
    },
    args: {
      maxAttempts: p.maxAttempts,
      maxAheadMs: Math.max(0, Math.round(p.maxAheadMs ?? 0)),
      refusals: p.refusals.flatMap((r) => [
        r.id,
        r.token,
        r.error,
        r.jobsFault ? '1' : '0',
        retryField(r),
        r.maybeSent ? '1' : '0',
      ]),
    },
  }
}

/**
 * A refusal's retry time as lua/release.lua takes it: absolute, or `+<ms>` from the script's clock. A time that is
 * not a finite number (NaN from a clock not measured yet, Infinity) never reaches the script: its ZADD would fail
 * there, mid-loop, after the refusals before it were applied. It counts as none given: `retryInMs`, else at once.
 */
function retryField(r: Refusal): number | string {
  if (r.retryAtMs !== undefined && Number.isFinite(r.retryAtMs)) return r.retryAtMs
  const inMs = r.retryInMs !== undefined && Number.isFinite(r.retryInMs) ? Math.max(0, Math.round(r.retryInMs)) : 0
  return `+${inMs}`
}

export function decodeRelease(reply: ReleaseReply): DecodedRelease {
  const [released, dead, deadIds, retired] = reply
  return {
    released: Number(released),
    dead: Number(dead),
    deadIds: deadIds ?? [],
    retired: Number(retired ?? 0),
  }
}
