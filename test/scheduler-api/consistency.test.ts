// A schedule is two writes, its definition and its engine job, and they never disagree, whatever runs beside them or
// fails between them: two UpdateSchedule at once, a DeleteScheduleGroup while a CreateSchedule in the group is under
// way, a job write whose answer is lost, a create that stopped between its two writes. Real Redis, fauxqs and the
// unmodified SDK; only the moment a job write happens is held (interceptedEngine), to make the interleaving certain.
import {
  ConflictException,
  CreateScheduleCommand,
  CreateScheduleGroupCommand,
  DeleteScheduleCommand,
  DeleteScheduleGroupCommand,
  GetScheduleCommand,
  GetScheduleGroupCommand,
  InternalServerException,
  ListScheduleGroupsCommand,
  ResourceNotFoundException,
  SchedulerClient,
  TagResourceCommand,
  UpdateScheduleCommand,
} from '@aws-sdk/client-scheduler'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { localCredentials } from '../../local/sqs-endpoint'
import { JobMaybeDispatchedError } from '../../src/errors'
import { DefinitionStore } from '../../src/scheduler-api/definition-store'
import type { ScheduleDefinition } from '../../src/scheduler-api/schedule-input'
import {
  atExpression,
  type DefinitionWriteHook,
  interceptedDefinitionWrites,
  interceptedEngine,
  type JobWriteHook,
  startSchedulerStack,
} from './scheduler-stack'

/** What the next job writes meet; none: they pass. */
let hook: JobWriteHook | undefined
/** What the next write of definitions (a MULTI/EXEC pipeline) meets; none: it passes. */
let definitionHook: DefinitionWriteHook | undefined
let stack: Awaited<ReturnType<typeof startSchedulerStack>>
beforeAll(async () => {
  stack = await startSchedulerStack({
    apiEngine: (engine) => ({
      ...interceptedEngine(engine, (kind, write) => (hook ? hook(kind, write) : write())),
      redis: interceptedDefinitionWrites(engine.redis, () => {
        const hook = definitionHook
        definitionHook = undefined
        return hook
      }),
    }),
  })
})
afterAll(() => stack?.close())

function deferred<T = void>() {
  let resolve!: (value: T) => void
  const promise = new Promise<T>((ok) => {
    resolve = ok
  })
  return { promise, resolve }
}

/** The first job write (upsert) from now on waits for `release`, before or after it is made; `reached` says it is there. */
function holdNextJobWrite(when: 'before' | 'after') {
  const reached = deferred()
  const release = deferred()
  let held = false
  hook = async (kind, write) => {
    if (kind !== 'upsert' || held) return write()
    held = true
    if (when === 'before') {
      reached.resolve()
      await release.promise
      return write()
    }
    const result = await write()
    reached.resolve()
    await release.promise
    return result
  }
  return { reached: reached.promise, release: () => release.resolve() }
}

const hourFromNow = (hours: number) => atExpression(Math.ceil(Date.now() / 1000) * 1000 + hours * 3_600_000)

const schedule = (Name: string, ScheduleExpression: string, Input: string, GroupName?: string) => ({
  Name,
  ...(GroupName ? { GroupName } : {}),
  ScheduleExpression,
  FlexibleTimeWindow: { Mode: 'OFF' as const },
  Target: stack.target(Input),
})

/** The definition as GetSchedule answers it and the job, side by side (null for what is not there). */
async function bothSides(name: string, group = 'default') {
  const definition = await stack.client
    .send(new GetScheduleCommand({ Name: name, GroupName: group }))
    .catch((e: unknown) => (e instanceof ResourceNotFoundException ? null : Promise.reject(e)))
  const job = await stack.delayQueue.get(`scheduler:${group}:${name}`)
  return {
    definition: definition && { input: definition.Target?.Input, expression: definition.ScheduleExpression },
    job: job && { input: job.payload, expression: `at(${job.runAt.slice(0, 19)})` },
  }
}

describe('a definition and its job agree', () => {
  it('after two UpdateSchedule of one schedule at once: the second waits for the first, then meets ConflictException', async () => {
    // prepare: a schedule; the next update's job write is held once made, before its definition is stored
    await stack.client.send(new CreateScheduleCommand(schedule('contended', hourFromNow(1), 'v0')))
    const held = holdNextJobWrite('after')
    // act: update A arms its job and is held; update B comes meanwhile; A goes on once B has its answer
    const a = stack.client.send(new UpdateScheduleCommand(schedule('contended', hourFromNow(2), 'A')))
    await held.reached
    const b = await stack.client
      .send(new UpdateScheduleCommand(schedule('contended', hourFromNow(3), 'B')))
      .catch((e: unknown) => e)
    held.release()
    await a
    hook = undefined
    // assess: A is the schedule, definition and job alike; B was told to try again
    expect(b).toBeInstanceOf(ConflictException)
    const sides = await bothSides('contended')
    expect(sides.job).toEqual(sides.definition)
    expect(sides.definition?.input).toBe('A')
  })

  it('after a DeleteScheduleGroup that ran while a CreateSchedule in the group was under way: no job is left to fire', async () => {
    // prepare: a group; the create's job write is held before it is made (its definition is stored by then)
    await stack.client.send(new CreateScheduleGroupCommand({ Name: 'closing' }))
    const held = holdNextJobWrite('before')
    // act: the create is held; the group's delete runs; the create goes on once the delete has its answer
    const create = stack.client
      .send(new CreateScheduleCommand(schedule('late', hourFromNow(1), 'x', 'closing')))
      .catch((e: unknown) => e)
    await held.reached
    const deleted = await stack.client
      .send(new DeleteScheduleGroupCommand({ Name: 'closing' }))
      .catch((e: unknown) => e)
    held.release()
    const created = await create
    hook = undefined
    // assess: while it ran, the group was DELETING, as on AWS; whichever answers came, the delete sent again (what a
    // caller does after a ConflictException) leaves no group, no definition, and above all no job
    if (deleted instanceof Error) {
      expect(deleted).toBeInstanceOf(ConflictException)
      expect(await stack.client.send(new GetScheduleGroupCommand({ Name: 'closing' }))).toMatchObject({
        State: 'DELETING',
      })
      await stack.client.send(new DeleteScheduleGroupCommand({ Name: 'closing' }))
    }
    // The create is refused (the group is DELETING, or gone by the time it looks), or made before the delete took it.
    if (created instanceof Error) expect(created.name).toMatch(/^(ConflictException|ResourceNotFoundException)$/)
    expect(await stack.delayQueue.get('scheduler:closing:late')).toBeNull()
    await expect(stack.client.send(new GetScheduleGroupCommand({ Name: 'closing' }))).rejects.toBeInstanceOf(
      ResourceNotFoundException,
    )
    expect(await stack.engine.redis.hlen(stack.engine.keys.schedulerGroup('closing').definitions)).toBe(0)
  })

  it('after a CreateSchedule whose job write was made but its answer lost: neither is left', async () => {
    // prepare: the next job write is made, and then its caller is told it failed (a timeout after Redis applied it)
    hook = async (kind, write) => {
      const result = await write()
      if (kind !== 'upsert') return result
      hook = undefined
      throw new Error('Command timed out')
    }
    const once = new SchedulerClient({
      endpoint: stack.server.url,
      region: 'us-east-1',
      credentials: localCredentials,
      maxAttempts: 1,
    })
    // act
    const create = await once.send(new CreateScheduleCommand(schedule('lost', hourFromNow(1), 'x'))).catch((e) => e)
    once.destroy()
    hook = undefined
    // assess: the caller was told to retry, and nothing fires for a schedule it was told does not exist
    expect(create).toBeInstanceOf(InternalServerException)
    expect(await bothSides('lost')).toEqual({ definition: null, job: null })
  })

  it('after a create that stopped between its two writes, the same create sent again arms the stored schedule', async () => {
    // prepare: the definition a create stored before it stopped (a crash), and no job
    const expression = hourFromNow(1)
    const nowS = Math.floor(Date.now() / 1000)
    const stored: ScheduleDefinition = {
      ...schedule('half-made', expression, 'y'),
      GroupName: 'default',
      State: 'ENABLED',
      ActionAfterCompletion: 'NONE',
      ClientToken: 'create-half-made',
      CreationDate: nowS,
      LastModificationDate: nowS,
    }
    await new DefinitionStore(stack.engine.redis, stack.engine.keys, stack.engine.replication)
      .schedules('default')
      .create('half-made', stored)
    // act: the SDK's retry of that create, its ClientToken included
    await stack.client.send(
      new CreateScheduleCommand({ ...schedule('half-made', expression, 'y'), ClientToken: 'create-half-made' }),
    )
    // assess
    const sides = await bothSides('half-made')
    expect(sides.definition).toEqual({ input: 'y', expression })
    expect(sides.job).toEqual(sides.definition)
  })

  it('after a DeleteSchedule that met its job in a send that may have reached SQS: ConflictException, and both stay', async () => {
    // prepare: a schedule whose job the engine answers as maybe sent (a send that failed in a way SQS may have taken)
    await stack.client.send(new CreateScheduleCommand(schedule('maybe-sent', hourFromNow(1), 'z')))
    hook = async (kind, write) => {
      if (kind === 'cancel') throw new JobMaybeDispatchedError('scheduler:default:maybe-sent')
      return write()
    }
    // act
    const deleted = await stack.client.send(new DeleteScheduleCommand({ Name: 'maybe-sent' })).catch((e: unknown) => e)
    hook = undefined
    // assess: told to try again (not an InternalServerException the SDK retries in vain); nothing changed
    expect(deleted).toBeInstanceOf(ConflictException)
    const sides = await bothSides('maybe-sent')
    expect(sides.definition?.input).toBe('z')
    expect(sides.job).toEqual(sides.definition)
  })

  it('after an UpdateSchedule whose definition write failed: the job is put back as the definition still says', async () => {
    // prepare: a schedule; the update's job write will pass, its definition write will fail
    const before = hourFromNow(1)
    await stack.client.send(new CreateScheduleCommand(schedule('kept', before, 'old')))
    const once = new SchedulerClient({
      endpoint: stack.server.url,
      region: 'us-east-1',
      credentials: localCredentials,
      maxAttempts: 1,
    })
    definitionHook = () => Promise.reject(new Error('Connection is closed.'))
    // act
    const update = await once
      .send(new UpdateScheduleCommand(schedule('kept', hourFromNow(2), 'new')))
      .catch((e: unknown) => e)
    once.destroy()
    definitionHook = undefined
    // assess: the caller was told to retry; definition and job are both still the old schedule
    expect(update).toBeInstanceOf(InternalServerException)
    const sides = await bothSides('kept')
    expect(sides.definition).toEqual({ input: 'old', expression: before })
    expect(sides.job).toEqual(sides.definition)
  })

  it('after a TagResource that ran while its group was being deleted: the group does not come back', async () => {
    // prepare: a group; the tag's write of the group is held once it has read it
    const { ScheduleGroupArn } = await stack.client.send(new CreateScheduleGroupCommand({ Name: 'tagged' }))
    const reached = deferred()
    const release = deferred()
    definitionHook = async (exec) => {
      reached.resolve()
      await release.promise
      return exec()
    }
    // act: the tag is held; the group's delete runs; the tag goes on once the delete has its answer
    const tag = stack.client
      .send(new TagResourceCommand({ ResourceArn: ScheduleGroupArn, Tags: [{ Key: 'k', Value: 'v' }] }))
      .catch((e: unknown) => e)
    await reached.promise
    const deleted = await stack.client.send(new DeleteScheduleGroupCommand({ Name: 'tagged' })).catch((e: unknown) => e)
    release.resolve()
    await tag
    // assess: the delete, sent again after a ConflictException as a caller does, leaves no group
    if (deleted instanceof Error) {
      expect(deleted).toBeInstanceOf(ConflictException)
      await stack.client.send(new DeleteScheduleGroupCommand({ Name: 'tagged' }))
    }
    const groups = await stack.client.send(new ListScheduleGroupsCommand({ NamePrefix: 'tagged' }))
    expect(groups.ScheduleGroups).toEqual([])
  })
})
