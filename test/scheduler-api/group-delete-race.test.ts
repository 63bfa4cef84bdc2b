// A DeleteScheduleGroup that reads its group's schedule names before a CreateSchedule in that group has stored its
// definition cannot see that schedule: the create, which checked the group before, must notice the group went and take
// its schedule back, else its job fires for a group and a schedule that no longer exist. Real Redis, fauxqs and the
// unmodified SDK; only the create's write of its definition is held (interceptedDefinitionWrites) to fix the order.
import {
  CreateScheduleCommand,
  CreateScheduleGroupCommand,
  DeleteScheduleGroupCommand,
  GetScheduleCommand,
  ResourceNotFoundException,
} from '@aws-sdk/client-scheduler'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  atExpression,
  type DefinitionWriteHook,
  interceptedDefinitionWrites,
  startSchedulerStack,
} from './scheduler-stack'

/** What the next write of definitions meets; none: it passes. */
let definitionHook: DefinitionWriteHook | undefined
let stack: Awaited<ReturnType<typeof startSchedulerStack>>
beforeAll(async () => {
  stack = await startSchedulerStack({
    apiEngine: (engine) => ({
      ...engine,
      redis: interceptedDefinitionWrites(engine.redis, () => {
        const hook = definitionHook
        definitionHook = undefined
        return hook
      }),
    }),
  })
})
afterAll(() => stack?.close())

describe('DeleteScheduleGroup beside a CreateSchedule in the group', () => {
  it('leaves no job when it read the names before the create stored its schedule', async () => {
    // prepare: a group; the create's definition write is held until the group's delete has its answer
    await stack.client.send(new CreateScheduleGroupCommand({ Name: 'vanishing' }))
    let reached!: () => void
    const writeReached = new Promise<void>((ok) => {
      reached = ok
    })
    let release!: () => void
    const released = new Promise<void>((ok) => {
      release = ok
    })
    definitionHook = async (exec) => {
      reached()
      await released
      return exec()
    }
    // act
    const create = stack.client
      .send(
        new CreateScheduleCommand({
          Name: 'unseen',
          GroupName: 'vanishing',
          ScheduleExpression: atExpression(Date.now() + 3_600_000),
          FlexibleTimeWindow: { Mode: 'OFF' },
          Target: stack.target('x'),
        }),
      )
      .catch((e: unknown) => e)
    await writeReached
    await stack.client.send(new DeleteScheduleGroupCommand({ Name: 'vanishing' }))
    release()
    const created = await create
    // assess: the create is told its group is gone, and nothing of it is left to fire or to find
    expect(created).toBeInstanceOf(ResourceNotFoundException)
    expect(await stack.delayQueue.get('scheduler:vanishing:unseen')).toBeNull()
    await expect(
      stack.client.send(new GetScheduleCommand({ Name: 'unseen', GroupName: 'vanishing' })),
    ).rejects.toBeInstanceOf(ResourceNotFoundException)
    expect(await stack.engine.redis.exists(stack.engine.keys.schedulerGroup('vanishing').definitions)).toBe(0)
  })
})
