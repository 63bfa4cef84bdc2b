// CreateSchedule / GetSchedule / UpdateSchedule / DeleteSchedule for at() schedules, onto our jobs: a schedule is
// its definition (definition-store.ts) plus, while it is ENABLED and due, the job "scheduler:<group>:<name>"
// (job-id.ts) whose payload is the Target's Input, delivered as the raw message body (src/sqs/raw-input.ts).
import type { DelayQueue } from '../direct/delay-queue'
import { JobDispatchingError, JobNotFoundError } from '../errors'
import { atExpressionMs } from './at-expression'
import type { DefinitionStore } from './definition-store'
import { SchedulerConflictError, SchedulerNotFoundError } from './errors'
import { engineId } from './job-id'
import type { ScheduleDefinition } from './schedule-input'
import { targetQueueOf } from './target-queue'

/** EventBridge Scheduler fires an at() schedule within its minute: a time older than that has passed for good. */
const PAST_MS = 60_000

export const dueMs = (d: ScheduleDefinition): number =>
  atExpressionMs(d.ScheduleExpression, d.ScheduleExpressionTimezone)

export class OneTimeSchedules {
  constructor(
    private readonly queue: DelayQueue,
    private readonly store: DefinitionStore,
  ) {}

  /** Stores a new schedule; a create sent again with the same ClientToken answers as the first did. */
  async create(def: ScheduleDefinition): Promise<void> {
    const target = targetQueueOf(def.Target.Arn, this.queue.config.queues)
    const schedules = this.store.schedules<ScheduleDefinition>(def.GroupName)
    const { created, doc } = await schedules.create(def.Name, def)
    if (!created) {
      if (doc.ClientToken !== undefined && doc.ClientToken === def.ClientToken) return
      throw new SchedulerConflictError(`Schedule ${def.Name} already exists.`)
    }
    try {
      await this.arm(def, target)
    } catch (e) {
      await schedules.delete(def.Name)
      throw e
    }
  }

  /** The schedule as stored, or null; one whose ActionAfterCompletion is DELETE is gone once it has fired. */
  async get(group: string, name: string): Promise<ScheduleDefinition | null> {
    const def = await this.store.schedules<ScheduleDefinition>(group).get(name)
    if (!def || !(await this.completedForDeletion(def))) return def
    await this.store.schedules(group).delete(name)
    return null
  }

  /** Full replace, as AWS does: every field not sent takes its default. CreationDate is kept. */
  async update(def: ScheduleDefinition): Promise<void> {
    const target = targetQueueOf(def.Target.Arn, this.queue.config.queues)
    const schedules = this.store.schedules<ScheduleDefinition>(def.GroupName)
    const current = await this.get(def.GroupName, def.Name)
    if (!current) throw new SchedulerNotFoundError(`Schedule ${def.Name} does not exist.`)
    await this.arm(def, target, current)
    await schedules.replace(def.Name, { ...def, CreationDate: current.CreationDate })
  }

  async delete(group: string, name: string): Promise<void> {
    const schedules = this.store.schedules<ScheduleDefinition>(group)
    if (!(await schedules.get(name))) throw new SchedulerNotFoundError(`Schedule ${name} does not exist.`)
    await this.disarm(group, name)
    await schedules.delete(name)
  }

  /** Cancels the schedule's job if it still waits (a group being deleted calls this for each of its schedules). */
  async disarm(group: string, name: string): Promise<void> {
    try {
      await this.queue.cancel(engineId(group, name))
    } catch (e) {
      if (e instanceof JobDispatchingError) {
        throw new SchedulerConflictError(`Schedule ${name} is being delivered right now: try again in a moment.`)
      }
      if (!(e instanceof JobNotFoundError)) throw e
    }
  }

  /**
   * Makes the job match the definition: pending at the at() time when ENABLED, absent when DISABLED. A time that has
   * passed (or that already fired: an update of a completed schedule changes its definition only) is not armed.
   */
  private async arm(def: ScheduleDefinition, target: string, current?: ScheduleDefinition): Promise<void> {
    const id = engineId(def.GroupName, def.Name)
    const atMs = dueMs(def)
    if (def.State === 'DISABLED') return this.disarm(def.GroupName, def.Name)
    if (current && (await this.firedAt(id, atMs))) return
    if (atMs < Date.now() - PAST_MS) return this.disarm(def.GroupName, def.Name)
    const groupId = def.Target.SqsParameters?.MessageGroupId
    await this.queue.reschedule(id, {
      queue: target,
      payload: def.Target.Input ?? '{}',
      runAt: atMs,
      ...(groupId ? { groupId } : {}),
    })
  }

  private async firedAt(id: string, atMs: number): Promise<boolean> {
    const view = await this.queue.get(id)
    return view?.status === 'dispatched' && Date.parse(view.dueAt ?? view.runAt) === atMs
  }

  /** Fired (or passed for good) and to be deleted after completion. */
  async completedForDeletion(def: ScheduleDefinition): Promise<boolean> {
    if (def.ActionAfterCompletion !== 'DELETE' || def.State !== 'ENABLED') return false
    const atMs = dueMs(def)
    if (atMs > Date.now()) return false
    // No job at all once its time has come: fired (its receipt expired or none is kept), or never armed because the
    // time had passed. A create still on its way cannot be mistaken for harm: its job fires, and the schedule is gone.
    const view = await this.queue.get(engineId(def.GroupName, def.Name))
    return view === null || view.status === 'dispatched'
  }
}
