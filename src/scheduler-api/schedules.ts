// CreateSchedule / GetSchedule / UpdateSchedule / DeleteSchedule: a schedule is its definition (definition-store.ts)
// plus what fires it in the engine (engine-binding.ts), written in that order and undone when the second fails.
import type { DelayQueue } from '../direct/delay-queue'
import type { DefinitionStore } from './definition-store'
import { EngineBinding } from './engine-binding'
import { SchedulerConflictError, SchedulerNotFoundError } from './errors'
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
      await this.binding.arm(def, target, false)
    } catch (e) {
      await schedules.delete(def.Name)
      throw e
    }
  }

  /** The schedule as stored, or null; one whose ActionAfterCompletion is DELETE is gone once it has completed. */
  async get(group: string, name: string): Promise<ScheduleDefinition | null> {
    const def = await this.store.schedules<ScheduleDefinition>(group).get(name)
    if (!def || !(await this.completedForDeletion(def))) return def
    await this.store.schedules(group).delete(name)
    return null
  }

  /** Full replace, as AWS does: every field not sent takes its default. CreationDate is kept. */
  async update(def: ScheduleDefinition): Promise<void> {
    const target = targetQueueOf(def.Target.Arn, this.queue.config.queues)
    const current = await this.get(def.GroupName, def.Name)
    if (!current) throw new SchedulerNotFoundError(`Schedule ${def.Name} does not exist.`)
    await this.binding.arm(def, target, true)
    await this.store.schedules(def.GroupName).replace(def.Name, { ...def, CreationDate: current.CreationDate })
  }

  /** A delete sent again with the ClientToken of one that succeeded answers as that one did. */
  async delete(group: string, name: string, clientToken?: string): Promise<void> {
    const schedules = this.store.schedules<ScheduleDefinition>(group)
    // Read as GetSchedule reads it: one deleted after its completion is not found any more.
    if (!(await this.get(group, name))) {
      if (clientToken && (await schedules.deletedByToken(clientToken)) === name) return
      throw new SchedulerNotFoundError(`Schedule ${name} does not exist.`)
    }
    await this.disarm(group, name)
    await schedules.delete(name, clientToken)
  }

  /** Stops the schedule firing (a group being deleted calls this for each of its schedules). */
  disarm(group: string, name: string): Promise<void> {
    return this.binding.disarm(group, name)
  }

  /** Completed, and to be deleted after completion (ActionAfterCompletion DELETE). */
  async completedForDeletion(def: ScheduleDefinition): Promise<boolean> {
    return def.ActionAfterCompletion === 'DELETE' && (await this.binding.completed(def))
  }
}
