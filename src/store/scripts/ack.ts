// lua/ack.lua's whole contract on the TypeScript side: the call (KEYS and ARGV by name, in the header's order), with
// what a settlement and its receipt are, and the keys schedule-ack shares with it. Its reply is a count: how many of
// the jobs their lease still held.
import { receiptSlot, type ShardKeys } from '../keys'
import { receiptExpiry, receiptHour } from '../receipt'
import type { Arg, ScriptCall } from '../scripts'

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
