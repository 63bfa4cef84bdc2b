// The schedule store: recurring schedules in Redis, next to the jobs they produce (lua/schedule-*.lua).
// The next occurrence is computed here (src/recurrence/recurrence.ts) from Redis's clock and handed to the scripts.
import { ScriptErrorCode, scheduleScriptError } from './script-errors'
import { nextOccurrence } from '../recurrence/recurrence'
import type { Keyspace, ShardKeys } from './keys'
import { verifyLayout } from './layout'
import { guard } from './redis/redis-errors'
import { readRecordHeads } from './record-heads'
import { decodeScheduleRecord, SCHEDULE_HEADER_LINES, type ScheduleSpec, type StoredSchedule } from './schedule-record'
import type { ReplicationOptions } from './redis/replication'
import { writeScript } from './redis/write'
import { decodeScheduleDelete, scheduleDeleteCall } from './scripts/schedule-delete'
import { decodeSchedulePut, schedulePutCall, SchedulePutStatus } from './scripts/schedule-put'
import type { ScriptedClient } from './scripts'
import { idsUnderTag } from './tag-index'

export interface NewSchedule {
  id: string
  spec: ScheduleSpec
  payloadJson: string
}

export interface PutResult {
  created: boolean
  schedule: StoredSchedule
}

export interface ScheduleList {
  schedules: { id: string; schedule: StoredSchedule }[]
  /** The last id returned when more may follow, else null. */
  cursor: string | null
}

export class ScheduleStore {
  constructor(
    readonly redis: ScriptedClient,
    readonly keys: Keyspace,
    /** Replicas that confirm each put and delete (REDIS_WAIT_REPLICAS), as for jobs: src/store/redis/replication.ts. */
    readonly replication: ReplicationOptions,
  ) {}

  /** Create or replace. With `expectedVersion`, only over that version (ScheduleChangedError otherwise). */
  async put(schedule: NewSchedule, expectedVersion?: number): Promise<PutResult> {
    await guard(verifyLayout(this.redis, this.keys))
    const { id, payloadJson } = schedule
    const nowMs = await this.redisNow()
    const spec = anchored(schedule.spec, nowMs)
    const first = spec.paused ? null : nextOccurrence(spec, nowMs)
    const second = first === null ? null : nextOccurrence(spec, first)
    const call = schedulePutCall(this.keys.locate(id), {
      id,
      specJson: JSON.stringify(spec),
      payloadJson,
      queue: spec.queue,
      groupId: spec.groupId ?? '',
      first,
      second,
      expectedVersion,
      tags: spec.tags,
    })
    const { reply, unconfirmed } = await writeScript(this.redis, this.replication, this.keys.locate(id).shard, call)
    const put = decodeSchedulePut(reply)
    if (put.status === 'refused') throw scheduleScriptError(put.code, id)
    if (unconfirmed) throw unconfirmed
    const { status, ...written } = put
    return { created: status === SchedulePutStatus.Created, schedule: { ...written, spec, payloadJson } }
  }

  async get(id: string): Promise<StoredSchedule | null> {
    await guard(verifyLayout(this.redis, this.keys))
    const record = await guard(this.redis.hget(this.keys.locate(id).shard.schedules, id))
    return record === null ? null : decodeScheduleRecord(record)
  }

  /** Throws ScheduleNotFoundError. */
  async delete(id: string): Promise<void> {
    await guard(verifyLayout(this.redis, this.keys))
    const location = this.keys.locate(id)
    const { reply, unconfirmed } = await writeScript(
      this.redis,
      this.replication,
      location.shard,
      scheduleDeleteCall(location, id),
    )
    if (!decodeScheduleDelete(reply)) throw scheduleScriptError(ScriptErrorCode.ScheduleNotFound, id)
    if (unconfirmed) throw unconfirmed
  }

  /**
   * Schedules in id order, after `cursor` (an id). Each shard keeps its ids sorted; their heads are merged.
   * `payloads: false` reads no payload (each payloadJson is then empty); `tag`: only the schedules with that tag (each
   * shard's schedule tag index holds "<tag>\n<id>", in id order within a tag: tags never hold a byte below "\v").
   */
  async list(
    cursor: string | null,
    limit: number,
    options: { payloads?: boolean; tag?: string } = {},
  ): Promise<ScheduleList> {
    await guard(verifyLayout(this.redis, this.keys))
    const { tag } = options
    const idsOf = async (shard: ShardKeys) => {
      if (tag === undefined) {
        const from = cursor === null ? '-' : `(${cursor}`
        return this.redis.zrangebylex(shard.scheduleIds, from, '+', 'LIMIT', 0, limit + 1)
      }
      return idsUnderTag(this.redis, shard.scheduleTags, tag, cursor, limit + 1)
    }
    const perShard = await guard(
      Promise.all(this.keys.shards.map(async (shard) => (await idsOf(shard)).map((id) => ({ id, shard })))),
    )
    const merged = perShard.flat().sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
    const page = merged.slice(0, limit)
    const records = await guard(
      options.payloads === false
        ? this.heads(page)
        : Promise.all(page.map((s) => this.redis.hget(s.shard.schedules, s.id))),
    )
    const schedules = page.flatMap(({ id }, i) => {
      const record = records[i]
      return record ? [{ id, schedule: decodeScheduleRecord(record) }] : [] // deleted meanwhile
    })
    return { schedules, cursor: merged.length > limit ? page[page.length - 1]!.id : null }
  }

  /** Records without their payloads (payloadJson ""): the dashboard lists schedules without reading them. */
  private async heads(page: { id: string; shard: ShardKeys }[]): Promise<(string | null)[]> {
    const byShard = new Map<ShardKeys, string[]>()
    for (const { id, shard } of page) byShard.set(shard, [...(byShard.get(shard) ?? []), id])
    const heads = new Map<string, string | null>()
    for (const [shard, ids] of byShard) {
      const read = await readRecordHeads(this.redis, shard.schedules, ids, {
        headerLines: SCHEDULE_HEADER_LINES,
        previewBytes: 0,
      })
      ids.forEach((id, i) => heads.set(id, read[i]?.head ?? null))
    }
    return page.map(({ id }) => heads.get(id) ?? null)
  }

  private async redisNow(): Promise<number> {
    const [seconds, micros] = await guard(this.redis.time())
    return Number(seconds) * 1000 + Math.floor(Number(micros) / 1000)
  }
}

/** A fixed rate counts from startAt, else from the moment it is written: the first run is one period later. */
function anchored(spec: ScheduleSpec, nowMs: number): ScheduleSpec {
  if (spec.everyMs === undefined) return spec
  return { ...spec, anchorMs: spec.startAtMs ?? nowMs + spec.everyMs }
}
