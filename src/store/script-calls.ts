// What each Lua script receives: one builder per script, from a shard's keys (or a job's location in it) and named
// parameters. Only these builders know the order of a script's KEYS and ARGV: they list them by name, in the order of
// the script's header (test/engine/scripts.test.ts holds the two together), and the key count follows from the list.
// Call sites pass names: a key cannot be swapped for another, nor a bucket for one of another shard.
import type { JobState } from './job-state'
import type { JobLocation, ShardKeys } from './keys'
import type { ScriptName } from './scripts'

type Arg = string | number

/** A script's keys (a list spreads in place: claim's due buckets) and arguments by name, in KEYS / ARGV order. */
export interface ScriptCall<R> {
  script: ScriptName
  keys: Readonly<Record<string, string | readonly string[]>>
  args: Readonly<Record<string, Arg | readonly Arg[]>>
  /** Never set: carries the type of the script's reply to runScript. */
  readonly reply?: R
}

/** lua/enqueue.lua: { 1 | 2, dueMs, createdAtMs, version }, or { -1, state, record, score }, or { -2 }. */
export type EnqueueReply = [number, ...(number | string)[]]

export interface EnqueueParams {
  id: string
  mode: 'insert' | 'upsert'
  queue: string
  groupId: string
  payloadJson: string
  schedule: { delayMs: number } | { atMs: number }
}

export function enqueueCall({ shard, bucket, bucketNo }: JobLocation, job: EnqueueParams): ScriptCall<EnqueueReply> {
  // The record is "\n"-separated (src/store/record.ts): a newline in these would corrupt it.
  if (job.queue.includes('\n') || job.groupId.includes('\n')) throw new Error('queue and groupId cannot hold "\\n"')
  const [kind, when] = 'delayMs' in job.schedule ? ['delay', job.schedule.delayMs] : ['at', job.schedule.atMs]
  return {
    script: 'sdqEnqueue',
    keys: {
      jobs: shard.jobs, index: shard.index, bucket, inflight: shard.inflight, leases: shard.leases,
      errors: shard.errors, dead: shard.dead, counts: shard.counts,
    },
    args: {
      id: job.id, bucketNo, mode: job.mode, queue: job.queue, groupId: job.groupId, payload: job.payloadJson,
      kind, when, wake: shard.wakeChannel,
    },
  }
}

/** lua/get.lua: { state, record, score, attempt, lastError }, or null. */
export type GetReply = [JobState, string, string, string | number, string] | null

export function getCall({ shard, bucket }: JobLocation, id: string): ScriptCall<GetReply> {
  return {
    script: 'sdqGet',
    keys: {
      jobs: shard.jobs, bucket, inflight: shard.inflight, leases: shard.leases, errors: shard.errors, dead: shard.dead,
    },
    args: { id },
  }
}

/** lua/cancel.lua: 1, or a ScriptErrorCode. */
export function cancelCall({ shard, bucket, bucketNo }: JobLocation, id: string): ScriptCall<number> {
  return {
    script: 'sdqCancel',
    keys: {
      jobs: shard.jobs, index: shard.index, bucket, inflight: shard.inflight, leases: shard.leases,
      errors: shard.errors, dead: shard.dead, counts: shard.counts,
    },
    args: { id, bucketNo },
  }
}

/** lua/revive.lua: the new due time (ms), or ScriptErrorCode.JobNotFound (0). */
export function reviveCall({ shard, bucket, bucketNo }: JobLocation, id: string, delayMs: number): ScriptCall<number> {
  return {
    script: 'sdqRevive',
    keys: {
      jobs: shard.jobs, index: shard.index, bucket, errors: shard.errors, dead: shard.dead, counts: shard.counts,
    },
    args: { id, bucketNo, delayMs, wake: shard.wakeChannel },
  }
}

export interface ClaimParams {
  limit: number
  leaseMs: number
  token: string
  maxAttempts: number
  hintCap: number
  lookaheadMs: number
  /** Bucket numbers the caller expects to be due: their keys go to KEYS, their numbers to ARGV. */
  hints: readonly string[]
}

/** lua/claim.lua: { now, nextDue, needHints, more, hints, flat jobs: id, record, dueMs, attempt, ... }. */
export type ClaimReply = [number, number, number, number, string[], (string | number)[]]

export function claimCall(shard: ShardKeys, p: ClaimParams): ScriptCall<ClaimReply> {
  return {
    script: 'sdqClaim',
    keys: {
      jobs: shard.jobs, index: shard.index, inflight: shard.inflight, leases: shard.leases, errors: shard.errors,
      dead: shard.dead, counts: shard.counts, buckets: p.hints.map((b) => shard.bucket(b)),
    },
    args: {
      limit: p.limit, leaseMs: p.leaseMs, token: p.token, maxAttempts: p.maxAttempts, hintCap: p.hintCap,
      lookaheadMs: p.lookaheadMs, bucketNos: p.hints,
    },
  }
}

export interface Settlement {
  id: string
  token: string
}

/** lua/ack.lua: how many of the jobs their lease still held. */
export function ackCall(shard: ShardKeys, settlements: readonly Settlement[]): ScriptCall<number> {
  return {
    script: 'sdqAck',
    keys: {
      jobs: shard.jobs, inflight: shard.inflight, leases: shard.leases, errors: shard.errors, counts: shard.counts,
    },
    args: { settlements: settlements.flatMap((s) => [s.id, s.token]) },
  }
}

export interface Refusal extends Settlement {
  error: string
  /** Whether the refusal counts against the job's attempts (SQS refused it as the sender's fault). */
  jobsFault: boolean
}

export interface ReleaseParams {
  maxAttempts: number
  backoffBaseMs: number
  backoffMaxMs: number
  refusals: readonly Refusal[]
}

/** lua/release.lua: { released, dead }. */
export function releaseCall(shard: ShardKeys, p: ReleaseParams): ScriptCall<[number, number]> {
  return {
    script: 'sdqRelease',
    keys: {
      jobs: shard.jobs, inflight: shard.inflight, leases: shard.leases, errors: shard.errors, dead: shard.dead,
      counts: shard.counts,
    },
    args: {
      maxAttempts: p.maxAttempts, backoffBaseMs: p.backoffBaseMs, backoffMaxMs: p.backoffMaxMs,
      refusals: p.refusals.flatMap((r) => [r.id, r.token, r.error, r.jobsFault ? '1' : '0']),
    },
  }
}
