// Recurring schedules from application code: what DelayQueue's schedule methods do. A schedule's next occurrence is
// an ordinary pending job, so in on-demand scan mode each write may have to start a scanner for it.
import type { Config } from '../config'
import { ScheduleChangedError, ScheduleNotFoundError } from '../errors'
import type { ScheduleStore } from '../store/schedule-store'
import { verifyLayout } from '../store/layout'
import { guard } from '../store/redis/redis-errors'
import {
  deleteSchedulesByTag,
  type ScheduleTagDeleteOptions,
  type ScheduleTagDeleteResult,
} from '../store/schedule-tag-delete'
import type { ScanStarter } from '../on-demand/start/scan-starter'
import { validateScheduleId, writableId } from './id-rules'
import { validateSchedule, type ScheduleInput } from './schedule-validation'
import { scheduleView, type ScheduleListPage, type ScheduleView } from './schedule-view'
import { validateTag } from './tag-rules'

export class RecurringSchedules {
  constructor(
    private readonly store: ScheduleStore,
    private readonly config: Config,
    /** On-demand scan mode only. */
    private readonly starter?: ScanStarter,
    /** Refuses the ids reserved for the Scheduler-compatible API (src/direct/id-rules.ts, writableId). */
    private readonly writable: (id: string) => string = writableId,
  ) {}

  async put(id: string, input: ScheduleInput | unknown): Promise<ScheduleView & { created: boolean }> {
    const valid = validateSchedule(id, input, this.config)
    this.writable(id)
    const { created, schedule } = await this.store.put(valid)
    await this.starter?.afterSchedule(id, schedule.pendingMs)
    return { ...scheduleView(id, schedule), created }
  }

  async get(id: string): Promise<ScheduleView | null> {
    const schedule = await this.store.get(validateScheduleId(id))
    return schedule && scheduleView(id, schedule)
  }

  /** `tag`: only the schedules with that tag. */
  async list(options: { cursor?: string | null; limit?: number; tag?: string }): Promise<ScheduleListPage> {
    const cursor = options.cursor ? validateScheduleId(options.cursor) : null
    const tag = options.tag === undefined ? undefined : validateTag(options.tag)
    const page = await this.store.list(cursor, options.limit ?? 50, tag === undefined ? {} : { tag })
    return { schedules: page.schedules.map((s) => scheduleView(s.id, s.schedule)), cursor: page.cursor }
  }

  async delete(id: string): Promise<void> {
    await this.store.delete(validateScheduleId(id))
  }

  /** Every schedule with the tag, each as delete() deletes one (src/store/schedule-tag-delete.ts). */
  async deleteByTag(tag: string, options: ScheduleTagDeleteOptions = {}): Promise<ScheduleTagDeleteResult> {
    validateTag(tag)
    const { redis, keys, replication } = this.store
    await guard(verifyLayout(redis, keys))
    return guard(deleteSchedulesByTag(redis, keys, replication, tag, options))
  }

  async pause(id: string, paused: boolean): Promise<ScheduleView> {
    validateScheduleId(id)
    // Read, then write over exactly that version; a concurrent write makes us read again.
    for (let attempt = 0; ; attempt++) {
      const current = await this.store.get(id)
      if (!current) throw new ScheduleNotFoundError(id)
      try {
        const spec = { ...current.spec, paused }
        const { schedule } = await this.store.put({ id, spec, payloadJson: current.payloadJson }, current.version)
        await this.starter?.afterSchedule(id, schedule.pendingMs)
        return scheduleView(id, schedule)
      } catch (e) {
        if (!(e instanceof ScheduleChangedError) || attempt >= 3) throw e
      }
    }
  }
}
