// ListSchedules: every group in name order (or the one GroupName names), each group's schedules in name order, with
// NamePrefix and State applied, MaxResults (1-100) at a time. NextToken holds where the page stopped.
import type { DefinitionStore } from './definition-store'
import { SchedulerValidationError } from './errors'
import type { ScheduleGroups } from './groups'
import type { Schedules } from './schedules'
import type { ScheduleDefinition } from './schedule-input'

export interface ListQuery {
  group?: string
  prefix: string
  state?: string
  limit: number
  token?: string
}

interface Position {
  /** The group the page stopped in, and the last schedule name it covered there. */
  g: string
  n: string
}

export function encodeToken(p: Position): string {
  return Buffer.from(JSON.stringify(p)).toString('base64url')
}

export function decodeToken(token: string): Position {
  try {
    const p = JSON.parse(Buffer.from(token, 'base64url').toString()) as Position
    if (typeof p.g === 'string' && typeof p.n === 'string') return p
  } catch {}
  throw new SchedulerValidationError('NextToken is not a token this API gave out.')
}

export async function listSchedules(
  q: ListQuery,
  deps: { store: DefinitionStore; groups: ScheduleGroups; schedules: Schedules },
): Promise<{ items: ScheduleDefinition[]; next?: string }> {
  if (q.state !== undefined && q.state !== 'ENABLED' && q.state !== 'DISABLED') {
    throw new SchedulerValidationError('State must be ENABLED or DISABLED.')
  }
  let at = q.token ? decodeToken(q.token) : undefined
  const items: ScheduleDefinition[] = []
  for (let group = at?.g ?? (await firstGroup(q, deps.groups)); group !== undefined; ) {
    const page = await deps.store
      .schedules<ScheduleDefinition>(group)
      .page(at?.g === group ? at.n : undefined, q.prefix, q.limit - items.length)
    for (const d of page.items) {
      if (q.state && d.State !== q.state) continue
      if (await deps.schedules.completedForDeletion(d)) await deps.schedules.get(d.GroupName, d.Name)
      else items.push(d)
    }
    if (page.last !== undefined) return { items, next: encodeToken({ g: group, n: page.last }) }
    at = undefined
    group = q.group ? undefined : await nextGroup(group, deps.groups)
  }
  return { items }
}

async function firstGroup(q: ListQuery, groups: ScheduleGroups): Promise<string | undefined> {
  if (q.group) return (await groups.get(q.group)).Name
  return (await groups.page(undefined, '', 1)).items[0]?.Name
}

async function nextGroup(after: string, groups: ScheduleGroups): Promise<string | undefined> {
  return (await groups.page(after, '', 1)).items[0]?.Name
}
