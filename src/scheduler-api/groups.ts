// Schedule groups: CreateScheduleGroup / GetScheduleGroup / DeleteScheduleGroup (with its schedules) /
// ListScheduleGroups, and their tags (in EventBridge Scheduler only groups carry tags). "default" always exists.
import type { DefinitionStore } from './definition-store'
import { SchedulerConflictError, SchedulerNotFoundError, SchedulerValidationError } from './errors'
import type { Schedules } from './schedules'
import { checkName } from './schedule-input'

export interface Tag {
  Key: string
  Value: string
}

export interface GroupDefinition {
  Name: string
  /** DELETING while DeleteScheduleGroup removes its schedules (as on AWS): no schedule can be added then. */
  State: 'ACTIVE' | 'DELETING'
  CreationDate: number
  LastModificationDate: number
  Tags: Tag[]
  ClientToken?: string
}

export const DEFAULT_GROUP = 'default'

/** Schedules a group delete disarms at once. */
const DELETE_CONCURRENCY = 16

export class ScheduleGroups {
  constructor(
    private readonly store: DefinitionStore,
    private readonly schedules: Schedules,
  ) {}

  private get docs() {
    return this.store.groups<GroupDefinition>()
  }

  async create(name: string, tags: unknown, clientToken: string | undefined, nowS: number): Promise<void> {
    checkName(name)
    const doc: GroupDefinition = {
      Name: name,
      State: 'ACTIVE',
      CreationDate: nowS,
      LastModificationDate: nowS,
      Tags: readTags(tags ?? []),
      ...(clientToken ? { ClientToken: clientToken } : {}),
    }
    if (name === DEFAULT_GROUP) throw new SchedulerConflictError(`Schedule group ${name} already exists.`)
    const { created, doc: held } = await this.docs.create(name, doc)
    if (!created && !(held.ClientToken && held.ClientToken === clientToken)) {
      throw new SchedulerConflictError(`Schedule group ${name} already exists.`)
    }
  }

  /** The group, or a ResourceNotFoundException. */
  async get(name: string): Promise<GroupDefinition> {
    if (name === DEFAULT_GROUP) return this.ensureDefault()
    const doc = await this.docs.get(name)
    if (doc) return doc
    throw new SchedulerNotFoundError(`Schedule group ${name} does not exist.`)
  }

  /** The group, to add a schedule to: a ResourceNotFoundException, or a ConflictException while it is being deleted. */
  async open(name: string): Promise<GroupDefinition> {
    const group = await this.get(name)
    if (group.State === 'DELETING') throw new SchedulerConflictError(`Schedule group ${name} is being deleted.`)
    return group
  }

  /** "default" is stored the first time anyone asks for it (its CreationDate is then). */
  private async ensureDefault(): Promise<GroupDefinition> {
    // Read first: reads (ListSchedules pages) must keep working when Redis is full and refuses every write.
    const stored = await this.docs.get(DEFAULT_GROUP)
    if (stored) return stored
    const nowS = Math.floor(Date.now() / 1000)
    const doc = { Name: DEFAULT_GROUP, State: 'ACTIVE', CreationDate: nowS, LastModificationDate: nowS, Tags: [] }
    return (await this.docs.create(DEFAULT_GROUP, doc as GroupDefinition)).doc
  }

  /**
   * Deletes the group and every schedule in it (each one's job before its definition). The group is DELETING first:
   * a create that stored its schedule after the names were read sees that and takes its schedule back.
   */
  async delete(name: string, clientToken?: string): Promise<void> {
    if (name === DEFAULT_GROUP) throw new SchedulerValidationError('The default schedule group cannot be deleted.')
    // A delete sent again with the ClientToken of one that succeeded answers as that one did.
    if (clientToken && !(await this.docs.get(name)) && (await this.docs.deletedByToken(clientToken)) === name) return
    // Under the group's lock: a tag written beside it must not put the group back ACTIVE.
    await this.docs.hold(name, async () => {
      const group = await this.get(name)
      if (group.State !== 'DELETING') await this.save({ ...group, State: 'DELETING' })
    })
    const schedules = this.store.schedules(name)
    // A few at a time: a large group would take one round trip per schedule otherwise. A delete cut short (a
    // timeout) leaves the group DELETING with its remaining schedules; sent again, it carries on.
    const names = await schedules.names()
    for (let i = 0; i < names.length; i += DELETE_CONCURRENCY) {
      await Promise.all(
        names.slice(i, i + DELETE_CONCURRENCY).map((scheduleName) => this.schedules.remove(name, scheduleName)),
      )
    }
    await schedules.drop()
    await this.docs.delete(name, clientToken)
  }

  /** Groups by name ("default" among them), after `after`. */
  async page(after: string | undefined, prefix: string, limit: number) {
    await this.ensureDefault()
    return this.docs.page(after, prefix, limit)
  }

  /** Tags are a change of the group's document: under its lock, and not while the group is being deleted. */
  async tag(name: string, tags: unknown, nowS: number): Promise<void> {
    const added = readTags(tags)
    await this.docs.hold(name, async () => {
      const group = await this.open(name)
      const byKey = new Map(group.Tags.map((t) => [t.Key, t.Value]))
      for (const t of added) byKey.set(t.Key, t.Value)
      if (byKey.size > 200) throw new SchedulerValidationError('A resource can carry at most 200 tags.')
      const Tags = [...byKey].map(([Key, Value]) => ({ Key, Value }))
      await this.save({ ...group, Tags, LastModificationDate: nowS })
    })
  }

  async untag(name: string, keys: readonly string[], nowS: number): Promise<void> {
    const drop = new Set(keys)
    await this.docs.hold(name, async () => {
      const group = await this.open(name)
      await this.save({ ...group, Tags: group.Tags.filter((t) => !drop.has(t.Key)), LastModificationDate: nowS })
    })
  }

  private save(group: GroupDefinition): Promise<void> {
    return this.docs.replace(group.Name, group)
  }
}

function readTags(tags: unknown): Tag[] {
  if (!Array.isArray(tags)) throw new SchedulerValidationError('Tags must be a list of { Key, Value }.')
  return tags.map((t, i) => {
    const { Key, Value } = (t ?? {}) as Record<string, unknown>
    if (typeof Key !== 'string' || Key.length < 1 || Key.length > 128) {
      throw new SchedulerValidationError(`Tags[${i}].Key must be a string of 1-128 characters.`)
    }
    if (typeof Value !== 'string' || Value.length > 256) {
      throw new SchedulerValidationError(`Tags[${i}].Value must be a string of 0-256 characters.`)
    }
    return { Key, Value }
  })
}
