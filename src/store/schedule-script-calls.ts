// The recurring schedules' script calls (put, delete, the occurrence ack), built the way src/store/script-calls.ts
// builds the job side's: KEYS and ARGV by name, in each script's header order.
import type { JobLocation, ShardKeys } from './keys'
import { type AckSettlement, ackKeys, type ReceiptPlan, receiptKeys } from './scripts/ack'
import { jobSideKeys } from './scripts/job-side-keys'
import type { ScriptCall } from './scripts'

/** The keys a schedule script touches besides its schedule: the whole job side of its shard, and its bucket. */
function scheduleKeys({ shard, bucket }: JobLocation) {
  return {
    schedules: shard.schedules,
    scheduleIds: shard.scheduleIds,
    ...jobSideKeys({ shard, bucket }),
    tags: shard.tags,
    scheduleTags: shard.scheduleTags,
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
  /** The schedule's tags: every occurrence carries them. */
  tags?: readonly string[]
}

/** lua/schedule-put.lua's success codes, the first element of its reply (0 or a negative one is a ScriptErrorCode). */
export enum SchedulePutStatus {
  Created = 1,
  Replaced = 2,
}

/** lua/schedule-put.lua: { SchedulePutStatus, version, pendingMs | -1, runs, lastRunMs | -1, createdAtMs }, or { 0 } / { -4 }. */
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
      tags: (p.tags ?? []).join('\n'),
    },
  }
}

/** lua/schedule-delete.lua: 1, or 0 (no such schedule). */
export function scheduleDeleteCall(at: JobLocation, id: string): ScriptCall<number> {
  return { script: 'sdqScheduleDelete', keys: scheduleKeys(at), args: { id, bucketNo: at.bucketNo } }
}

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
