// Schedule groups and ListSchedules through the unmodified SDK: "default" exists, a group's deletion takes its
// schedules (and their pending jobs) with it, and listing pages through hundreds of schedules with its filters.
import {
  ConflictException,
  CreateScheduleCommand,
  CreateScheduleGroupCommand,
  DeleteScheduleGroupCommand,
  GetScheduleCommand,
  GetScheduleGroupCommand,
  ListScheduleGroupsCommand,
  ListTagsForResourceCommand,
  ResourceNotFoundException,
  TagResourceCommand,
  UntagResourceCommand,
  ValidationException,
  paginateListSchedules,
} from '@aws-sdk/client-scheduler'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { atExpression, startSchedulerStack } from './scheduler-stack'

let stack: Awaited<ReturnType<typeof startSchedulerStack>>
beforeAll(async () => {
  stack = await startSchedulerStack()
})
afterAll(() => stack?.close())

const create = (Name: string, GroupName?: string, State: 'ENABLED' | 'DISABLED' = 'ENABLED') =>
  stack.client.send(
    new CreateScheduleCommand({
      Name,
      ...(GroupName ? { GroupName } : {}),
      State,
      ScheduleExpression: atExpression(Date.now() + 3_600_000),
      FlexibleTimeWindow: { Mode: 'OFF' },
      Target: stack.target(Name),
    }),
  )

describe('schedule groups and listing', () => {
  it('has a default group, creates others once, and tags only groups', async () => {
    const defaultGroup = await stack.client.send(new GetScheduleGroupCommand({ Name: 'default' }))
    expect(defaultGroup).toMatchObject({ Name: 'default', State: 'ACTIVE' })
    const { ScheduleGroupArn } = await stack.client.send(
      new CreateScheduleGroupCommand({ Name: 'billing', Tags: [{ Key: 'team', Value: 'pay' }] }),
    )
    expect(ScheduleGroupArn).toBe('arn:aws:scheduler:us-east-1:000000000000:schedule-group/billing')
    await expect(stack.client.send(new CreateScheduleGroupCommand({ Name: 'billing' }))).rejects.toBeInstanceOf(
      ConflictException,
    )
    const groups = await stack.client.send(new ListScheduleGroupsCommand({}))
    expect(groups.ScheduleGroups!.map((g) => g.Name)).toEqual(['billing', 'default'])

    await stack.client.send(
      new TagResourceCommand({ ResourceArn: ScheduleGroupArn, Tags: [{ Key: 'env', Value: 'dev' }] }),
    )
    await stack.client.send(new UntagResourceCommand({ ResourceArn: ScheduleGroupArn, TagKeys: ['team'] }))
    const tags = await stack.client.send(new ListTagsForResourceCommand({ ResourceArn: ScheduleGroupArn }))
    expect(tags.Tags).toEqual([{ Key: 'env', Value: 'dev' }])
    const scheduleArn = 'arn:aws:scheduler:us-east-1:000000000000:schedule/default/x'
    await expect(
      stack.client.send(new ListTagsForResourceCommand({ ResourceArn: scheduleArn })),
    ).rejects.toBeInstanceOf(ValidationException)
    await expect(stack.client.send(new DeleteScheduleGroupCommand({ Name: 'default' }))).rejects.toBeInstanceOf(
      ValidationException,
    )
  })

  it('deletes a group with its schedules and their pending jobs', async () => {
    await stack.client.send(new CreateScheduleGroupCommand({ Name: 'doomed' }))
    await create('a', 'doomed')
    await create('b', 'doomed')
    expect(await stack.delayQueue.get('scheduler:doomed:a')).toMatchObject({ status: 'scheduled' })

    await stack.client.send(new DeleteScheduleGroupCommand({ Name: 'doomed', ClientToken: 'gone-1' }))
    // Sent again with the same token (a retry whose first answer was lost): answered as the first.
    await stack.client.send(new DeleteScheduleGroupCommand({ Name: 'doomed', ClientToken: 'gone-1' }))

    expect(await stack.delayQueue.get('scheduler:doomed:a')).toBeNull()
    expect(await stack.delayQueue.get('scheduler:doomed:b')).toBeNull()
    await expect(stack.client.send(new GetScheduleCommand({ Name: 'a', GroupName: 'doomed' }))).rejects.toBeInstanceOf(
      ResourceNotFoundException,
    )
    await expect(stack.client.send(new GetScheduleGroupCommand({ Name: 'doomed' }))).rejects.toBeInstanceOf(
      ResourceNotFoundException,
    )
    await expect(
      stack.client.send(new DeleteScheduleGroupCommand({ Name: 'doomed', ClientToken: 'gone-2' })),
    ).rejects.toBeInstanceOf(ResourceNotFoundException)
  })

  it('pages through 260 schedules in name order, and filters by group, name prefix and state', async () => {
    await stack.client.send(new CreateScheduleGroupCommand({ Name: 'many' }))
    const names = Array.from({ length: 260 }, (_, i) => `job-${String(i).padStart(3, '0')}`)
    for (let i = 0; i < names.length; i += 20) {
      await Promise.all(names.slice(i, i + 20).map((n, j) => create(n, 'many', (i + j) % 10 ? 'ENABLED' : 'DISABLED')))
    }
    const listed: string[] = []
    let pages = 0
    for await (const page of paginateListSchedules({ client: stack.client, pageSize: 100 }, { GroupName: 'many' })) {
      pages++
      listed.push(...page.Schedules!.map((s) => s.Name!))
      for (const s of page.Schedules!) expect(s).toMatchObject({ GroupName: 'many', Target: { Arn: stack.queueArn } })
    }
    expect(listed).toEqual(names)
    expect(pages).toBeGreaterThanOrEqual(3)

    const collect = async (input: Record<string, string>) => {
      const out: string[] = []
      for await (const page of paginateListSchedules({ client: stack.client, pageSize: 7 }, input))
        out.push(...page.Schedules!.map((s) => `${s.GroupName}/${s.Name}`))
      return out
    }
    expect(await collect({ NamePrefix: 'job-01' })).toEqual(names.slice(10, 20).map((n) => `many/${n}`))
    const disabled = await collect({ State: 'DISABLED', GroupName: 'many' })
    expect(disabled).toEqual(names.filter((_, i) => i % 10 === 0).map((n) => `many/${n}`))
    await create('solo')
    expect(await collect({ NamePrefix: 'solo' })).toEqual(['default/solo'])
  })
})
