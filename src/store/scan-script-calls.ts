// The scan side's script calls (ack with its receipt, release; a run's relay and on-demand markers), built
// the way src/store/script-calls.ts builds the job side's: KEYS and ARGV by name, in each script's header order.
import { receiptSlot, type ShardKeys } from './keys'
import { receiptExpiry, receiptHour } from './receipt'
import type { Arg, ScriptCall } from './scripts'

export interface Settlement {
  id: string
  token: string
}

/** What acknowledging a sent job touches (ack and schedule-ack): its record, lease and last error, and the counts. */
export function ackKeys(shard: ShardKeys) {
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

/**
 * The receipt hashes an ack writes into (this hour's, by id) and each settlement's hash as its index in KEYS: the
 * hashes follow `keysBefore` other keys (0 for a settlement without a receipt, or with receipts off).
 */
export function receiptKeys(shard: ShardKeys, keysBefore: number, receipts?: ReceiptPlan) {
  const on = receipts !== undefined && receipts.ttlMs > 0
  const hour = on ? receiptHour(receipts.nowMs) : 0
  const hashes: string[] = []
  // By slot: one hour's hashes differ by their slot alone, so a job's key is built once per slot, not once per job.
  const index = new Map<number, number>()
  const keyOf = (s: AckSettlement): number => {
    if (!on || s.receipt === undefined) return 0
    const slot = receiptSlot(s.id)
    const known = index.get(slot)
    if (known !== undefined) return known
    const n = keysBefore + hashes.push(shard.receipts(hour, slot))
    index.set(slot, n)
    return n
  }
  return { hashes, keyOf, expireAt: on ? receiptExpiry(hour, receipts.ttlMs) : 0 }
}

/** lua/ack.lua: how many of the jobs their lease still held. Without `receipts` (or a 0 ttl) none are written. */
export function ackCall(
  shard: ShardKeys,
  settlements: readonly AckSettlement[],
  receipts?: ReceiptPlan,
): ScriptCall<number> {
  const keys = ackKeys(shard)
  const { hashes, keyOf, expireAt } = receiptKeys(shard, 0, receipts)
  // One array, not one per settlement (an ack carries a claim's 250 jobs and more).
  const groups: Arg[] = new Array(settlements.length * 4)
  for (let i = 0, g = 0; i < settlements.length; i++, g += 4) {
    const s = settlements[i]!
    groups[g] = s.id
    groups[g + 1] = s.token
    groups[g + 2] = keyOf(s)
    groups[g + 3] = s.receipt ?? ''
  }
  return {
    script: 'sdqAck',
    keys: { ...keys, tags: shard.tags, receipts: hashes },
    args: { expireAt, settlements: groups },
  }
}

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

/** lua/relay-hand-back.lua: 1 when the relay key held `owner` and was given back to `predecessor`, else 0. */
export function relayHandBackCall(relayKey: string, owner: string, predecessor: string | null): ScriptCall<number> {
  return { script: 'sdqRelayHandBack', keys: { relay: relayKey }, args: { owner, predecessor: predecessor ?? '' } }
}

/** lua/scanner-alive.lua: how many runs are alive on the shard, this one included. */
export function scannerAliveCall(shard: ShardKeys, owner: string, ttlMs: number): ScriptCall<number> {
  return { script: 'sdqScannerAlive', keys: { scanner: shard.scannerAlive }, args: { owner, ttlMs } }
}

/** lua/scanner-retire.lua's verdict, the first element of its reply. */
export enum ScannerRetireStatus {
  /** The run's name is off the shard (or was not there). */
  Removed = 1,
  /** Work is due within the horizon: the run stays. */
  Kept = 0,
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
