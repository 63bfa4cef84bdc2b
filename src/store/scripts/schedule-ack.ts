// lua/schedule-ack.lua's whole contract on the TypeScript side: the call (KEYS and ARGV by name, in the header's
// order), with what an occurrence's ack carries. Its reply is a count: how many occurrences their lease still held.
import type { ShardKeys } from '../keys'
import type { ScriptCall } from '../scripts'
import { type AckSettlement, ackKeys, type ReceiptPlan, receiptKeys } from './ack'

export interface OccurrenceAck extends AckSettlement {
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

/**
 * lua/schedule-ack.lua: how many of the occurrences their lease still held. Each occurrence's `receipt` is kept as a
 * job's is (lua/ack.lua), unless `receipts` is absent or its ttl 0.
 */
export function scheduleAckCall(
  shard: ShardKeys,
  acks: readonly OccurrenceAck[],
  windowMs = 0,
  receipts?: ReceiptPlan,
): ScriptCall<number> {
  const buckets: string[] = []
  const keyIndex = new Map<number, number>() // bucket number -> its position in KEYS (1-based: 8 fixed keys first)
  for (const a of acks) {
    if (!keyIndex.has(a.bucketNo)) keyIndex.set(a.bucketNo, 8 + buckets.push(shard.bucket(a.bucketNo)))
  }
  const { hashes, keyOf, expireAt } = receiptKeys(shard, 8 + buckets.length, receipts)
  const occurrences = acks.flatMap((a) => [
    a.id,
    a.token,
    a.scheduleId,
    a.atMs,
    a.version,
    a.nextAfterIt ?? -1,
    a.nextAfterNow ?? -1,
    a.bucketNo,
    keyIndex.get(a.bucketNo)!,
    keyOf(a),
    a.receipt ?? '',
  ])
  return {
    script: 'sdqScheduleAck',
    // The receipt hashes are known once every occurrence has named its own (keyOf).
    keys: {
      ...ackKeys(shard),
      schedules: shard.schedules,
      index: shard.index,
      tags: shard.tags,
      bucketsAndReceipts: [...buckets, ...hashes],
    },
    args: { wake: shard.wakeChannel, windowMs, expireAt, occurrences },
  }
}
