// The twelve operations of the EventBridge Scheduler API, by HTTP method and path as @aws-sdk/client-scheduler
// sends them (restJson1), each turned into calls on the schedules and groups and an output body.
import { SchedulerNotFoundError, SchedulerValidationError } from './errors'
import type { ScheduleGroups } from './groups'
import { decodeToken, encodeToken, listSchedules } from './list-schedules'
import type { Schedules } from './schedules'
import { checkName, readScheduleInput } from './schedule-input'
import type { DefinitionStore } from './definition-store'
import { type ArnScope, groupArn, groupOfArn, groupOutput, scheduleArn, scheduleOutput, scheduleSummary } from './wire'

export interface OperationRequest {
  method: string
  /** Path segments after the base path, each decoded. */
  segments: string[]
  query: URLSearchParams
  body: Record<string, unknown>
  scope: ArnScope
}

export interface Parts {
  store: DefinitionStore
  schedules: Schedules
  groups: ScheduleGroups
}

type Output = Record<string, unknown>

const nowS = () => Math.floor(Date.now() / 1000)

/** A delete's ClientToken (the SDK always sends one): 1-64 printable characters, as AWS takes it. */
function clientToken(query: URLSearchParams): string | undefined {
  const token = query.get('clientToken') ?? undefined
  if (token !== undefined && !/^[\x21-\x7e]{1,64}$/.test(token)) {
    throw new SchedulerValidationError('ClientToken must be 1-64 printable characters.')
  }
  return token
}

function maxResults(query: URLSearchParams): number {
  const raw = query.get('MaxResults')
  if (raw === null) return 100
  const n = Number(raw)
  if (!Number.isInteger(n) || n < 1 || n > 100) throw new SchedulerValidationError('MaxResults must be 1-100.')
  return n
}

async function scheduleOperation(r: OperationRequest, p: Parts, name: string): Promise<Output> {
  const group = checkName(
    r.query.get('groupName') ?? (r.body.GroupName as string | undefined) ?? 'default',
    'GroupName',
  )
  if (r.method === 'GET') {
    const def = await p.schedules.get(group, checkName(name))
    if (!def) throw new SchedulerNotFoundError(`Schedule ${name} does not exist.`)
    return scheduleOutput(r.scope, def)
  }
  if (r.method === 'DELETE') {
    await p.schedules.delete(group, checkName(name), clientToken(r.query))
    return {}
  }
  const def = readScheduleInput(name, r.body, nowS())
  await p.groups.open(def.GroupName)
  if (r.method === 'POST') await p.schedules.create(def)
  else await p.schedules.update(def)
  return { ScheduleArn: scheduleArn(r.scope, def.GroupName, def.Name) }
}

async function groupOperation(r: OperationRequest, p: Parts, name: string): Promise<Output> {
  if (r.method === 'GET') return groupOutput(r.scope, await p.groups.get(name))
  if (r.method === 'DELETE') {
    await p.groups.delete(name, clientToken(r.query))
    return {}
  }
  await p.groups.create(name, r.body.Tags, r.body.ClientToken as string | undefined, nowS())
  return { ScheduleGroupArn: groupArn(r.scope, name) }
}

async function tagOperation(r: OperationRequest, p: Parts, arn: string): Promise<Output> {
  const group = groupOfArn(arn)
  if (!group)
    throw new SchedulerValidationError(`ResourceArn "${arn}" is not a schedule group ARN: only groups carry tags.`)
  if (r.method === 'GET') return { Tags: (await p.groups.get(group)).Tags }
  if (r.method === 'POST') await p.groups.tag(group, r.body.Tags, nowS())
  else await p.groups.untag(group, r.query.getAll('TagKeys'), nowS())
  return {}
}

async function listGroups(r: OperationRequest, p: Parts): Promise<Output> {
  const token = r.query.get('NextToken')
  const page = await p.groups.page(
    token ? decodeToken(token).g : undefined,
    r.query.get('NamePrefix') ?? '',
    maxResults(r.query),
  )
  return {
    ScheduleGroups: page.items.map((g) => groupOutput(r.scope, g)),
    ...(page.last ? { NextToken: encodeToken({ g: page.last, n: '' }) } : {}),
  }
}

async function listAll(r: OperationRequest, p: Parts): Promise<Output> {
  const q = r.query
  const page = await listSchedules(
    {
      ...(q.get('ScheduleGroup') ? { group: q.get('ScheduleGroup')! } : {}),
      prefix: q.get('NamePrefix') ?? '',
      ...(q.get('State') ? { state: q.get('State')! } : {}),
      limit: maxResults(q),
      ...(q.get('NextToken') ? { token: q.get('NextToken')! } : {}),
    },
    p,
  )
  return {
    Schedules: page.items.map((d) => scheduleSummary(r.scope, d)),
    ...(page.next ? { NextToken: page.next } : {}),
  }
}

/** The operation's output, or undefined when no operation has this method and path. */
export function runOperation(r: OperationRequest, p: Parts): Promise<Output> | undefined {
  const [resource, name, ...rest] = r.segments
  if (rest.length > 0) return undefined
  const one = name !== undefined
  if (resource === 'schedules' && one && ['GET', 'POST', 'PUT', 'DELETE'].includes(r.method)) {
    return scheduleOperation(r, p, name)
  }
  if (resource === 'schedules' && !one && r.method === 'GET') return listAll(r, p)
  if (resource === 'schedule-groups' && one && ['GET', 'POST', 'DELETE'].includes(r.method)) {
    return groupOperation(r, p, checkName(name))
  }
  if (resource === 'schedule-groups' && !one && r.method === 'GET') return listGroups(r, p)
  if (resource === 'tags' && one && ['GET', 'POST', 'DELETE'].includes(r.method)) return tagOperation(r, p, name)
  return undefined
}
