// What the dashboard shows, read from Redis only (no AWS call, no credentials): counts per target queue, due jobs
// by horizon, the scanners' recent windows (src/scan/observe/run-log.ts) and the dead set.
//
// A refresh (every 2 s while the page is open) reads no payload whole: counts come from the counters, the in-flight
// split and the dead and schedule lists from record heads (lua/record-heads.lua: queue, times, group, and for dead
// jobs a short payload preview). What it reads does not grow with payload sizes (test/engine/operator-reads.test.ts).
import { readWindows } from '../../scan/observe/run-log'
import type { ScanWindow } from '../../scan/observe/scan-window'
import type { JobStore } from '../../store/job-store'
import type { Keyspace } from '../../store/keys'
import { decodeRecord, RECORD_HEADER_LINES } from '../../store/record'
import { RecordHeadCache } from '../../store/record-heads'
import { guard } from '../../store/redis/redis-errors'
import { ScheduleStore } from '../../store/schedule-store'
import { queuesAsConfigured } from '../../store/stats'
import type { ScriptedClient } from '../../store/scripts'
import { DeadSet, type DeadJobHead } from '../dead-set'
import { isoTime } from '../../shared/iso-time'
import type { DueTimeline, QueueRow, ScheduleRow } from './overview-rows'

export type { DueTimeline, QueueRow, ScheduleRow }

export interface Overview {
  at: string
  queues: Record<string, QueueRow>
  timeline: DueTimeline
  windows: ScanWindow[]
  /** The most recent dead jobs, each payload cut after DEAD_PREVIEW_BYTES (the page shows one line of it). */
  dead: DeadJobHead[]
  /** The first recurring schedules by id (client/app.ts renders them). */
  schedules: ScheduleRow[]
}

/** Most schedules the overview lists (the first page by id; GET /schedules pages through all). */
const MAX_SCHEDULES = 50

const HORIZONS = { overdue: 0, minute: 60_000, hour: 3_600_000, day: 86_400_000, month: 30 * 86_400_000 } as const
/** Payload bytes shown per dead job: the page shows one line of each, cut at 320 px. */
const DEAD_PREVIEW_BYTES = 256
/**
 * Most in-flight jobs looked at per shard to split them by queue (their record heads only): a scanner holds at most
 * a few thousand.
 */
const MAX_INFLIGHT_READ = 5_000
/** Most due buckets counted per shard for the timeline (each is a small sorted set). */
const MAX_TIMELINE_BUCKETS = 20_000

export class OverviewReader {
  private readonly deadSet: DeadSet
  private readonly schedules: ScheduleStore
  /** Heads of in-flight and dead jobs, so that each record is read once, not once per refresh. */
  private readonly heads = new RecordHeadCache()

  constructor(
    private readonly redis: ScriptedClient,
    private readonly keys: Keyspace,
    private readonly store: JobStore,
    /** The configured target queues (QUEUES): shown when idle too, as /stats shows them; none: the counted ones. */
    private readonly configured?: readonly string[],
  ) {
    this.deadSet = new DeadSet(redis, keys)
    this.schedules = new ScheduleStore(redis, keys, store.replication)
  }

  async read(options: { deadLimit?: number; windows?: number } = {}): Promise<Overview> {
    const [stats, inFlight, timeline, windows, dead, schedules] = await Promise.all([
      this.store.stats(),
      guard(this.inFlightByQueue()),
      guard(this.timeline()),
      guard(readWindows(this.redis, this.keys, options.windows ?? 60)),
      this.deadSet.heads({ limit: options.deadLimit ?? 50, previewBytes: DEAD_PREVIEW_BYTES }, this.heads),
      this.schedules.list(null, MAX_SCHEDULES, { payloads: false }),
    ]).finally(() => this.heads.endRead())
    const queues: Record<string, QueueRow> = {}
    const counted = this.configured ? queuesAsConfigured(this.configured, stats.queues) : stats.queues
    for (const [name, c] of Object.entries(counted)) {
      const flying = inFlight.get(name) ?? 0
      // The counters' "pending" covers everything not yet in SQS; the table splits off what is in flight.
      queues[name] = {
        pending: Math.max(0, c.pending - flying),
        inFlight: flying,
        dead: c.dead,
        dispatched: c.dispatched,
      }
    }
    const all = Object.values(queues).reduce((n, q) => n + q.pending, 0)
    return {
      at: isoTime(Date.now()),
      queues,
      timeline: { ...timeline, all },
      windows,
      dead,
      schedules: schedules.schedules.map(({ id, schedule: s }) => ({
        id,
        queue: s.spec.queue,
        ...(s.spec.cron !== undefined ? { cron: s.spec.cron } : { everyMs: s.spec.everyMs! }),
        timezone: s.spec.timezone,
        paused: s.spec.paused,
        nextRunAt: s.pendingMs === null ? null : isoTime(s.pendingMs),
        lastRunAt: s.lastRunMs === null ? null : isoTime(s.lastRunMs),
        runs: s.runs,
        ...(s.spec.tags?.length ? { tags: s.spec.tags } : {}),
      })),
    }
  }

  private async inFlightByQueue(): Promise<Map<string, number>> {
    const byQueue = new Map<string, number>()
    for (const shard of this.keys.shards) {
      const flat = await this.redis.zrange(shard.inflight, '0', String(MAX_INFLIGHT_READ - 1), 'WITHSCORES')
      const members = []
      for (let i = 0; i < flat.length; i += 2) members.push({ id: flat[i]!, score: flat[i + 1]! })
      const heads = await this.heads.read(this.redis, shard.jobs, members, {
        headerLines: RECORD_HEADER_LINES,
        previewBytes: 0,
      })
      for (const head of heads) {
        if (!head) continue
        const { queue } = decodeRecord(head.head)
        byQueue.set(queue, (byQueue.get(queue) ?? 0) + 1)
      }
    }
    return byQueue
  }

  /** Counts per horizon: only buckets whose earliest job is due within a month are looked into. */
  private async timeline(): Promise<Omit<DueTimeline, 'all'>> {
    const [seconds, micros] = await this.redis.time()
    const now = Number(seconds) * 1000 + Math.floor(Number(micros) / 1000)
    const timeline = { overdue: 0, minute: 0, hour: 0, day: 0, month: 0 }
    const horizons = Object.entries(HORIZONS) as [keyof typeof HORIZONS, number][]
    for (const shard of this.keys.shards) {
      const buckets = await this.redis.zrangebyscore(
        shard.index,
        '-inf',
        String(now + HORIZONS.month),
        'LIMIT',
        '0',
        String(MAX_TIMELINE_BUCKETS),
      )
      const pipeline = this.redis.pipeline()
      for (const b of buckets) for (const [, ms] of horizons) pipeline.zcount(shard.bucket(b), '-inf', now + ms)
      const replies = (await pipeline.exec()) ?? []
      replies.forEach(([err, count], i) => {
        if (err) throw err
        timeline[horizons[i % horizons.length]![0]] += Number(count)
      })
    }
    return timeline
  }
}
