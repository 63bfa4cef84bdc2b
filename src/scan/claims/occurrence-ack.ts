// Acks for occurrences of recurring schedules: the ack that forgets an occurrence SQS accepted (keeping its dispatch
// receipt, as any job's) also creates the next one (lua/schedule-ack.lua), so no crash can lose or double a series.
// Lua cannot evaluate cron expressions, so the next occurrence is computed here, from the schedule as read just
// before; the script applies it only if the schedule still has that version and still names this occurrence as
// pending.
import { parseOccurrenceId } from '../../recurrence/occurrence-id'
import { nextOccurrence } from '../../recurrence/recurrence'
import type { Keyspace, ShardKeys } from '../../store/keys'
import { guard } from '../../store/redis/redis-errors'
import type { ReceiptPlan } from '../../store/scripts/ack'
import { decodeScheduleRecord, type StoredSchedule } from '../../store/schedule-record'
import { scheduleAckCall, type OccurrenceAck } from '../../store/scripts/schedule-ack'
import { runScript, type ScriptedClient } from '../../store/scripts'

export interface OccurrenceSettlement {
  id: string
  token: string
  /** Its encoded dispatch receipt (src/store/receipt.ts), kept by the same script; absent: none. */
  receipt?: string
}

export interface OccurrenceAckClock {
  /** Redis's clock now, as the scanner measured it (src/scan/loop/clock.ts): never the scanner's own clock. */
  redisNowMs: number
  /** The dispatch window: how late an occurrence may leave on purpose. */
  windowMs: number
  /** Where and how long the receipts are kept (none without it, or with a 0 ttl). */
  receipts?: ReceiptPlan
}

/** Acks occurrences of one shard and creates their successors. Returns how many this lease still held. */
export async function ackOccurrences(
  redis: ScriptedClient,
  keys: Keyspace,
  shard: ShardKeys,
  items: readonly OccurrenceSettlement[],
  clock: OccurrenceAckClock,
): Promise<number> {
  if (items.length === 0) return 0
  const refs = items.map((item) => ({ item, ref: parseOccurrenceId(item.id)! }))
  const scheduleIds = [...new Set(refs.map((r) => r.ref.scheduleId))]
  const records = await guard(redis.hmget(shard.schedules, ...scheduleIds))
  const byId = new Map<string, StoredSchedule>()
  scheduleIds.forEach((id, i) => {
    if (records[i]) byId.set(id, decodeScheduleRecord(records[i]!))
  })

  // Both candidates go to the script, which decides on Redis's own clock whether the first has been missed (more
  // than the window late); the second is the first occurrence after now, the series' next after a miss.
  const acks = refs.map(({ item, ref }): OccurrenceAck => {
    const schedule = byId.get(ref.scheduleId)
    // A deleted or paused schedule gets no successor; the script checks the version and pending time anyway.
    const active = schedule && !schedule.spec.paused
    return {
      id: item.id,
      token: item.token,
      ...(item.receipt !== undefined ? { receipt: item.receipt } : {}),
      scheduleId: ref.scheduleId,
      atMs: ref.atMs,
      version: schedule?.version ?? 0,
      nextAfterIt: active ? nextOccurrence(schedule.spec, ref.atMs) : null,
      nextAfterNow: active ? nextOccurrence(schedule.spec, Math.max(ref.atMs, clock.redisNowMs)) : null,
      bucketNo: keys.locate(ref.scheduleId).bucketNo,
    }
  })
  return Number(await guard(runScript(redis, scheduleAckCall(shard, acks, clock.windowMs, clock.receipts))))
}
