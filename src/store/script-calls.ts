// What each Lua script receives: one builder per script, from a shard's keys (or a job's location in it) and named
// parameters. Only these builders know the order of a script's KEYS and ARGV: they list them by name, in the order of
// the script's header (test/engine/scripts.test.ts holds the two together), and the key count follows from the list.
// Call sites pass names: a key cannot be swapped for another, nor a bucket for one of another shard.
import { parseOccurrenceId } from '../schedule/occurrence-id'
import type { JobState } from './job-state'
import { receiptSlot, type JobLocation, type ShardKeys } from './keys'
import { receiptExpiry, receiptHour } from './receipt'
import type { ScanStartOptions } from './scan-start'
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

/** lua/enqueue.lua: { 1 | 2, dueMs, createdAtMs, version, startScanner }, or { -1, state, record, score }, or { -2 }. */
export type EnqueueReply = [number, ...(number | string)[]]

export interface EnqueueParams {
  id: string
  mode: 'insert' | 'upsert'
  queue: string
  groupId: string
  payloadJson: string
  schedule: { delayMs: number } | { atMs: number }
  /** On-demand scan mode (src/store/scan-start.ts); absent: never ask for a scanner. */
  scanStart?: ScanStartOptions
}

/** The whole job side of a shard around one bucket, in the order enqueue, cancel and the schedule scripts take it. */
function jobSideKeys({ shard, bucket }: Pick<JobLocation, 'shard' | 'bucket'>) {
  return {
    jobs: shard.jobs,
    index: shard.index,
    bucket,
    inflight: shard.inflight,
    leases: shard.leases,
    errors: shard.errors,
    dead: shard.dead,
    counts: shard.counts,
  }
}

export function enqueueCall({ shard, bucket, bucketNo }: JobLocation, job: EnqueueParams): ScriptCall<EnqueueReply> {
  // The record is "\n"-separated (src/store/record.ts): a newline in these would corrupt it.
  if (job.queue.includes('\n') || job.groupId.includes('\n')) throw new Error('queue and groupId cannot hold "\\n"')
  const [kind, when] = 'delayMs' in job.schedule ? ['delay', job.schedule.delayMs] : ['at', job.schedule.atMs]
  return {
    script: 'sdqEnqueue',
    keys: {
      ...jobSideKeys({ shard, bucket }),
      scanner: shard.scannerAlive,
      start: shard.scanStart,
    },
    args: {
      id: job.id,
      bucketNo,
      mode: job.mode,
      queue: job.queue,
      groupId: job.groupId,
      payload: job.payloadJson,
      kind,
      when,
      wake: shard.wakeChannel,
      startHorizon: job.scanStart?.horizonMs ?? 0,
      startGuardMs: job.scanStart?.guardMs ?? 0,
    },
  }
}

/** lua/get.lua: { state, record, score, attempt, lastError }, { 'dispatched', receipt }, or null. */
export type GetReply = [JobState, string, string, string | number, string] | ['dispatched', string] | null

/** `receiptHours`: the hours whose receipt hashes to search, newest first (src/store/receipt.ts); none: no receipts. */
export function getCall(
  { shard, bucket }: JobLocation,
  id: string,
  receiptHours: readonly number[] = [],
): ScriptCall<GetReply> {
  const slot = receiptSlot(id)
  return {
    script: 'sdqGet',
    keys: {
      jobs: shard.jobs,
      bucket,
      inflight: shard.inflight,
      leases: shard.leases,
      errors: shard.errors,
      dead: shard.dead,
      receipts: receiptHours.map((h) => shard.receipts(h, slot)),
    },
    args: { id },
  }
}

/** lua/cancel.lua: 1, or a ScriptErrorCode. */
export function cancelCall({ shard, bucket, bucketNo }: JobLocation, id: string): ScriptCall<number> {
  return {
    script: 'sdqCancel',
    keys: {
      ...jobSideKeys({ shard, bucket }),
      schedules: shard.schedules,
    },
    args: { id, bucketNo, scheduleId: parseOccurrenceId(id)?.scheduleId ?? '' },
  }
}

/** lua/revive.lua: the new due time (ms), or ScriptErrorCode.JobNotFound (0). */
export function reviveCall({ shard, bucket, bucketNo }: JobLocation, id: string, delayMs: number): ScriptCall<number> {
  return {
    script: 'sdqRevive',
    keys: {
      jobs: shard.jobs,
      index: shard.index,
      bucket,
      errors: shard.errors,
      dead: shard.dead,
      counts: shard.counts,
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
  /** With a dispatch window, the jobs that fill a SendMessageBatch: the reply's fullAt says when that many are due. */
  fullCount: number
  /** The previous reply's fullAt when the caller woke for a full request, else 0: the claim stops at that request. */
  fullBy: number
  /**
   * The dispatch window (with fullBy: jobs whose window has ended are taken whatever fullBy says, the earliest first,
   * within the full request's ten when fullBy is later than their window's end).
   */
  windowMs: number
  /** Bucket numbers the caller expects to be due: their keys go to KEYS, their numbers to ARGV. */
  hints: readonly string[]
}

/**
 * lua/claim.lua: { now, nextDue, needHints, more, hints, flat jobs: id, record, dueMs, attempt, ..., nextInflight,
 * fullAt }.
 */
export type ClaimReply = [number, number, number, number, string[], (string | number)[], number, number, number]

export function claimCall(shard: ShardKeys, p: ClaimParams): ScriptCall<ClaimReply> {
  return {
    script: 'sdqClaim',
    keys: {
      jobs: shard.jobs,
      index: shard.index,
      inflight: shard.inflight,
      leases: shard.leases,
      errors: shard.errors,
      dead: shard.dead,
      counts: shard.counts,
      buckets: p.hints.map((b) => shard.bucket(b)),
    },
    args: {
      limit: p.limit,
      leaseMs: p.leaseMs,
      token: p.token,
      maxAttempts: p.maxAttempts,
      hintCap: p.hintCap,
      lookaheadMs: p.lookaheadMs,
      fullCount: p.fullCount,
      fullBy: p.fullBy,
      windowMs: p.windowMs,
      bucketNos: p.hints,
    },
  }
}

export interface Settlement {
  id: string
  token: string
}

/** What acknowledging a sent job touches (ack and schedule-ack): its record, lease and last error, and the counts. */
function ackKeys(shard: ShardKeys) {
  return {
    jobs: shard.jobs,
    inflight: shard.inflight,
    leases: shard.leases,
    errors: shard.errors,
    counts: shard.counts,
  }
}

/** What SQS answered for a sent job: kept in its dispatch receipt (src/store/receipt.ts). */
export interface Acceptance {
  messageId: string
  /** When SQS accepted it, on Redis's clock (the scanner's estimate), ms. */
  acceptedAtMs: number
}

export interface AckSettlement extends Settlement {
  /** The job's encoded dispatch receipt (encodeReceipt); absent: none (an ack without the send's answer). */
  receipt?: string
}

/** Receipts to write with an ack: the hour's hashes are chosen by `nowMs` (Redis's clock) and kept `ttlMs`. */
export interface ReceiptPlan {
  ttlMs: number
  nowMs: number
}

/** lua/ack.lua: how many of the jobs their lease still held. Without `receipts` (or a 0 ttl) none are written. */
export function ackCall(
  shard: ShardKeys,
  settlements: readonly AckSettlement[],
  receipts?: ReceiptPlan,
): ScriptCall<number> {
  const on = receipts !== undefined && receipts.ttlMs > 0
  const hour = on ? receiptHour(receipts.nowMs) : 0
  const hashes: string[] = []
  const index = new Map<string, number>()
  const hashOf = (s: AckSettlement): number => {
    if (!on || s.receipt === undefined) return 0
    const key = shard.receipts(hour, receiptSlot(s.id))
    const known = index.get(key)
    if (known !== undefined) return known
    const n = hashes.push(key)
    index.set(key, n)
    return n
  }
  const groups = settlements.flatMap((s) => [s.id, s.token, hashOf(s), s.receipt ?? ''])
  return {
    script: 'sdqAck',
    keys: { ...ackKeys(shard), receipts: hashes },
    args: { expireAt: on ? receiptExpiry(hour, receipts.ttlMs) : 0, settlements: groups },
  }
}

export interface Refusal extends Settlement {
  error: string
  /** Whether the refusal counts against the job's attempts (SQS refused it as the sender's fault). */
  jobsFault: boolean
  /** When to try again (src/scan/backoff.ts). */
  retryInMs: number
  /** The send failed in a way SQS may still have accepted (a timeout, a reset connection, a server error). */
  maybeSent?: boolean
}

export interface ReleaseParams {
  maxAttempts: number
  refusals: readonly Refusal[]
}

/** lua/release.lua: { released, dead, deadIds (dead or retired), retired }. */
export function releaseCall(shard: ShardKeys, p: ReleaseParams): ScriptCall<[number, number, string[], number]> {
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
    },
    args: {
      maxAttempts: p.maxAttempts,
      refusals: p.refusals.flatMap((r) => [
        r.id,
        r.token,
        r.error,
        r.jobsFault ? '1' : '0',
        r.retryInMs,
        r.maybeSent ? '1' : '0',
      ]),
    },
  }
}

/** The keys a schedule script touches besides its schedule: the whole job side of its shard, and its bucket. */
function scheduleKeys({ shard, bucket }: JobLocation) {
  return {
    schedules: shard.schedules,
    scheduleIds: shard.scheduleIds,
    ...jobSideKeys({ shard, bucket }),
  }
}

export interface SchedulePutParams {
  id: string
  specJson: string
  payloadJson: string
  queue: string
  groupId: string
  /** First occurrence (epoch ms), and the one after it; null for none. */
  first: number | null
  second: number | null
  /** Write only over this version (pause / resume); undefined for any. */
  expectedVersion?: number
}

/** lua/schedule-put.lua: { 1 | 2, version, pendingMs | -1, runs, lastRunMs | -1, createdAtMs }, or { 0 } / { -4 }. */
export type SchedulePutReply = number[]

export function schedulePutCall(at: JobLocation, p: SchedulePutParams): ScriptCall<SchedulePutReply> {
  if (p.queue.includes('\n') || p.groupId.includes('\n')) throw new Error('queue and groupId cannot hold "\\n"')
  return {
    script: 'sdqSchedulePut',
    keys: scheduleKeys(at),
    args: {
      id: p.id,
      bucketNo: at.bucketNo,
      spec: p.specJson,
      payload: p.payloadJson,
      queue: p.queue,
      groupId: p.groupId,
      first: p.first ?? -1,
      second: p.second ?? -1,
      wake: at.shard.wakeChannel,
      expected: p.expectedVersion ?? '',
    },
  }
}

/** lua/schedule-delete.lua: 1, or 0 (no such schedule). */
export function scheduleDeleteCall(at: JobLocation, id: string): ScriptCall<number> {
  return { script: 'sdqScheduleDelete', keys: scheduleKeys(at), args: { id, bucketNo: at.bucketNo } }
}

export interface OccurrenceAck extends Settlement {
  scheduleId: string
  atMs: number
  /** The schedule version the next occurrences were computed from (0: no schedule). */
  version: number
  /** The next occurrence after this one, and the next after now on Redis's clock (as measured); null for none. */
  nextAfterIt: number | null
  nextAfterNow: number | null
  /** The schedule's bucket (where its occurrences live). */
  bucketNo: number
}

/** lua/schedule-ack.lua: how many of the occurrences their lease still held. */
export function scheduleAckCall(shard: ShardKeys, acks: readonly OccurrenceAck[], windowMs = 0): ScriptCall<number> {
  const buckets: string[] = []
  const keyIndex = new Map<number, number>() // bucket number -> its position in KEYS (1-based: 7 fixed keys first)
  for (const a of acks) {
    if (!keyIndex.has(a.bucketNo)) keyIndex.set(a.bucketNo, 7 + buckets.push(shard.bucket(a.bucketNo)))
  }
  return {
    script: 'sdqScheduleAck',
    keys: {
      ...ackKeys(shard),
      schedules: shard.schedules,
      index: shard.index,
      buckets,
    },
    args: {
      wake: shard.wakeChannel,
      windowMs,
      occurrences: acks.flatMap((a) => [
        a.id,
        a.token,
        a.scheduleId,
        a.atMs,
        a.version,
        a.nextAfterIt ?? -1,
        a.nextAfterNow ?? -1,
        a.bucketNo,
        keyIndex.get(a.bucketNo)!,
      ]),
    },
  }
}

/** lua/relay-hand-back.lua: 1 when the relay key held `owner` and was given back to `predecessor`, else 0. */
export function relayHandBackCall(relayKey: string, owner: string, predecessor: string | null): ScriptCall<number> {
  return { script: 'sdqRelayHandBack', keys: { relay: relayKey }, args: { owner, predecessor: predecessor ?? '' } }
}

/** lua/scanner-alive.lua: how many runs are alive on the shard, this one included. */
export function scannerAliveCall(shard: ShardKeys, owner: string, ttlMs: number): ScriptCall<number> {
  return { script: 'sdqScannerAlive', keys: { scanner: shard.scannerAlive }, args: { owner, ttlMs } }
}

/** lua/scanner-retire.lua: [1, 0] when the run's name is off the shard, [0, untilDueMs] when work is due too soon. */
export function scannerRetireCall(
  shard: ShardKeys,
  p: { owner: string; horizonMs: number; startToken: string | null },
): ScriptCall<[number, number]> {
  return {
    script: 'sdqScannerRetire',
    keys: { scanner: shard.scannerAlive, index: shard.index, inflight: shard.inflight, start: shard.scanStart },
    args: { owner: p.owner, horizonMs: p.horizonMs, token: p.startToken ?? '' },
  }
}

/** lua/scan-start-release.lua: 1 when the shard's start guard held `token` (removed, or lapsing in `keepMs`). */
export function scanStartReleaseCall(shard: ShardKeys, token: string, keepMs = 0): ScriptCall<number> {
  return { script: 'sdqScanStartRelease', keys: { start: shard.scanStart }, args: { token, keepMs } }
}
