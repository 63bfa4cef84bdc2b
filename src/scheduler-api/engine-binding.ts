// What a Scheduler schedule is in the engine, kept in step with its definition: an at() schedule is the job
// "scheduler:<group>:<name>", a cron() or rate() schedule the recurring schedule of that id (its occurrences are jobs
// "<id>@<ms>"). Either way the payload is the Target's Input, delivered as the raw message body (src/sqs/raw-input.ts).
import type { DelayQueue } from '../direct/delay-queue'
import { JobDispatchingError, JobNotFoundError, ScheduleNotFoundError } from '../errors'
import { inSchedulerTerms } from './engine-fields'
import { SchedulerConflictError } from './errors'
import { readExpression } from './expression'
import { engineId } from './job-id'
import type { ScheduleDefinition } from './schedule-input'

/** EventBridge Scheduler fires an at() schedule within its minute: a time older than that has passed for good. */
const PAST_MS = 60_000

export class EngineBinding {
  constructor(private readonly queue: DelayQueue) {}

  /**
   * Makes the engine match the definition: ENABLED at() schedules have their job pending at their time (unless the
   * time has passed, or already fired: an update of a completed schedule changes its definition only); cron()/rate()
   * ones have their recurring schedule, paused while DISABLED.
   */
  async arm(def: ScheduleDefinition, target: string, updating: boolean): Promise<void> {
    const id = engineId(def.GroupName, def.Name)
    const when = readExpression(def.ScheduleExpression, def.ScheduleExpressionTimezone)
    const payload = def.Target.Input ?? '{}'
    const groupId = def.Target.SqsParameters?.MessageGroupId
    const group = groupId ? { groupId } : {}
    if (when.kind !== 'at') {
      await this.cancelJob(id)
      const queue = this.queue
      await inSchedulerTerms(() =>
        queue.putSchedule(id, {
          queue: target,
          payload,
          ...(when.kind === 'cron' ? { cron: when.cron } : { everyMs: when.everyMs }),
          timezone: def.ScheduleExpressionTimezone ?? 'UTC',
          ...(def.StartDate !== undefined ? { startAt: Math.round(def.StartDate * 1000) } : {}),
          ...(def.EndDate !== undefined ? { endAt: Math.round(def.EndDate * 1000) } : {}),
          paused: def.State === 'DISABLED',
          ...group,
        }),
      )
      return
    }
    await this.deleteRecurring(id)
    if (def.State === 'DISABLED' || when.atMs < Date.now() - PAST_MS) return this.cancelJob(id)
    if (updating && (await this.firedAt(id, when.atMs))) return
    await inSchedulerTerms(() => this.queue.reschedule(id, { queue: target, payload, runAt: when.atMs, ...group }))
  }

  /** Nothing of the schedule is left to fire. */
  async disarm(group: string, name: string): Promise<void> {
    const id = engineId(group, name)
    await this.cancelJob(id)
    await this.deleteRecurring(id)
  }

  /** Fired for good (an at() whose job is gone or dispatched, a series that has ended): ActionAfterCompletion's cue. */
  async completed(def: ScheduleDefinition): Promise<boolean> {
    if (def.State !== 'ENABLED') return false
    const id = engineId(def.GroupName, def.Name)
    const when = readExpression(def.ScheduleExpression, def.ScheduleExpressionTimezone)
    if (when.kind !== 'at') {
      const view = await this.queue.getSchedule(id)
      return view === null || view.nextRunAt === null
    }
    if (when.atMs > Date.now()) return false
    // No job at all once its time has come: fired (its receipt expired or none is kept), or never armed because the
    // time had passed. A create still on its way cannot be mistaken for harm: its job fires, and the schedule is gone.
    const view = await this.queue.get(id)
    return view === null || view.status === 'dispatched'
  }

  private async firedAt(id: string, atMs: number): Promise<boolean> {
    const view = await this.queue.get(id)
    return view?.status === 'dispatched' && Date.parse(view.dueAt ?? view.runAt) === atMs
  }

  private async cancelJob(id: string): Promise<void> {
    try {
      await this.queue.cancel(id)
    } catch (e) {
      if (e instanceof JobDispatchingError) {
        throw new SchedulerConflictError('The schedule is being delivered right now: try again in a moment.')
      }
      if (!(e instanceof JobNotFoundError)) throw e
    }
  }

  private async deleteRecurring(id: string): Promise<void> {
    try {
      await this.queue.deleteSchedule(id)
    } catch (e) {
      if (!(e instanceof ScheduleNotFoundError)) throw e
    }
  }
}
