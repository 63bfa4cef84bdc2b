// CreateSchedule / GetSchedule / UpdateSchedule / DeleteSchedule: a schedule is its definition (definition-store.ts)
// plus what fires it in the engine (engine-binding.ts). Each change of a schedule holds its lock (schedule-lock.ts),
// so that two changes never leave the definition of one and the job of the other. Whatever a failure leaves behind,
// nothing fires without a definition: a job is removed before its definition, and a definition left without its job
// (a crash between the two writes) is armed again by the create sent again, or removed by a delete.
import type { DelayQueue } from '../direct/delay-queue'
import type { DefinitionStore } from './definition-store'
import { EngineBinding } from './engine-binding'
import { SchedulerConflictError, SchedulerNotFoundError } from './errors'
import { DEFAULT_GROUP, type GroupDefinition } from './groups'
import type { ScheduleDefinition } from './schedule-input'
import { targetQueueOf } from './target-queue'

export class Schedules {
  private readonly binding: EngineBinding

  constructor(
    private readonly queue: DelayQueue,
    private readonly store: DefinitionStore,
  ) {
    this.binding = new EngineBinding(queue)
  }

  private docs(group: string) {
    return this.store.schedules<ScheduleDefinition>(group)
  }

  /** Stores a new schedule; a create sent again with the same ClientToken answers as the first did. */
  async create(def: ScheduleDefinition): Promise<void> {
    const target = targetQueueOf(def.Target.Arn, this.queue.config.queues)
    const schedules = this.docs(def.GroupName)
    await schedules.hold(def.Name, async () => {
      // A schedule that completed with ActionAfterCompletion DELETE is gone on AWS: its name is free again.
      await this.storedOrGone(def.GroupName, def.Name)
      const { created, doc } = await schedules.create(def.Name, def)
      if (!created) {
        if (doc.ClientToken === undefined || doc.ClientToken !== def.ClientToken) {
          throw new SchedulerConflictError(`Schedule ${def.Name} already exists.`)
        }
        // The first create may have stopped between its two writes: what it stored is armed now.
        await this.binding.arm(doc, targetQueueOf(doc.Target.Arn, this.queue.config.queues), true)
        return
      }
      try {
        await this.binding.arm(def, target, false)
        // A group delete that began meanwhile may have listed its schedules before this one was stored.
        await this.groupOpen(def.GroupName)
      } catch (e) {
        await this.takeBack(def)
        throw e
      }
    })
  }

  /**
   * Undoes a create that failed. Its job may exist although arming it failed (a write whose answer was lost): the job
   * goes first, and the definition only once the job is gone, else a job would fire with no schedule to show for it.
   */
  private async takeBack(def: ScheduleDefinition): Promise<void> {
    try {
      await this.binding.disarm(def.GroupName, def.Name)
    } catch {
      return
    }
    await this.docs(def.GroupName)
      .delete(def.Name)
      .catch(() => undefined)
  }

  /** The schedule as stored, or null; one whose ActionAfterCompletion is DELETE is gone once it has completed. */
  async get(group: string, name: string): Promise<ScheduleDefinition | null> {
    const schedules = this.docs(group)
    const def = await schedules.get(name)
    if (!def || !(await this.completedForDeletion(def))) return def
    // Removed only as read, under the lock: an update under way may be storing a new definition of the name.
    return schedules.hold(name, async () => {
      const now = await schedules.get(name)
      if (!now || JSON.stringify(now) !== JSON.stringify(def)) return now
      await schedules.delete(name)
      return null
    })
  }

  /** Full replace, as AWS does: every field not sent takes its default. CreationDate is kept. */
  async update(def: ScheduleDefinition): Promise<void> {
    const target = targetQueueOf(def.Target.Arn, this.queue.config.queues)
    const schedules = this.docs(def.GroupName)
    await schedules.hold(def.Name, async () => {
      const current = await this.storedOrGone(def.GroupName, def.Name)
      if (!current) throw new SchedulerNotFoundError(`Schedule ${def.Name} does not exist.`)
      await this.binding.arm(def, target, true)
      try {
        await schedules.replace(def.Name, { ...def, CreationDate: current.CreationDate })
      } catch (e) {
        // The definition stays as it was: so does the engine, as far as it can be put back.
        const was = targetQueueOf(current.Target.Arn, this.queue.config.queues)
        await this.binding.arm(current, was, true).catch(() => undefined)
        throw e
      }
    })
  }

  /** A delete sent again with the ClientToken of one that succeeded answers as that one did. */
  async delete(group: string, name: string, clientToken?: string): Promise<void> {
    const schedules = this.docs(group)
    await schedules.hold(name, async () => {
      // Read as GetSchedule reads it: one deleted after its completion is not found any more.
      if (!(await this.storedOrGone(group, name))) {
        if (clientToken && (await schedules.deletedByToken(clientToken)) === name) return
        throw new SchedulerNotFoundError(`Schedule ${name} does not exist.`)
      }
      await this.binding.disarm(group, name)
      await schedules.delete(name, clientToken)
    })
  }

  /** A group being deleted removes each of its schedules: the job first, then the definition. */
  remove(group: string, name: string): Promise<void> {
    const schedules = this.docs(group)
    return schedules.hold(name, async () => {
      await this.binding.disarm(group, name)
      await schedules.delete(name)
    })
  }

  /** Completed, and to be deleted after completion (ActionAfterCompletion DELETE). */
  async completedForDeletion(def: ScheduleDefinition): Promise<boolean> {
    return def.ActionAfterCompletion === 'DELETE' && (await this.binding.completed(def))
  }

  /** get() for a caller that holds the lock already: a completed DELETE schedule goes at once. */
  private async storedOrGone(group: string, name: string): Promise<ScheduleDefinition | null> {
    const def = await this.docs(group).get(name)
    if (!def || !(await this.completedForDeletion(def))) return def
    await this.docs(group).delete(name)
    return null
  }

  /** Throws unless the group takes schedules: it exists, and is not being deleted. */
  private async groupOpen(group: string): Promise<void> {
    if (group === DEFAULT_GROUP) return
    const doc = await this.store.groups<GroupDefinition>().get(group)
    if (!doc) throw new SchedulerNotFoundError(`Schedule group ${group} does not exist.`)
    if (doc.State === 'DELETING') throw new SchedulerConflictError(`Schedule group ${group} is being deleted.`)
  }
}
