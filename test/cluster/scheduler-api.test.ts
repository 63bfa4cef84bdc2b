// The Scheduler-compatible API on Redis Cluster: a group's definitions share the group's own slot, the groups' index
// sits with shard 0, and the jobs and schedules they stand for spread over the shards like any other. Creating,
// listing, firing and deleting a group across several masters must never meet a CROSSSLOT error.
import {
  CreateScheduleCommand,
  CreateScheduleGroupCommand,
  DeleteScheduleGroupCommand,
  GetScheduleCommand,
  ResourceNotFoundException,
  paginateListSchedules,
} from '@aws-sdk/client-scheduler'
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import { approximateCount, receiveAll } from '../support/sqs'
import { atExpression, startSchedulerStack } from '../scheduler-api/scheduler-stack'

let stack: Awaited<ReturnType<typeof startSchedulerStack>>
beforeAll(async () => {
  stack = await startSchedulerStack({
    env: { REDIS_CLUSTER_NODES: inject('redisClusterNodes')!.join(','), SHARDS: '6' },
  })
})
afterAll(() => stack?.close())

describe('the Scheduler-compatible API on Redis Cluster', () => {
  it('creates, lists, fires and deletes schedules of several groups', async () => {
    // prepare: three groups (three hash tags), 30 schedules over them, one of each group due in 2 s
    const groups = ['alpha', 'beta', 'gamma']
    const dueMs = Math.ceil(Date.now() / 1000) * 1000 + 2_000
    for (const g of groups) await stack.client.send(new CreateScheduleGroupCommand({ Name: g }))
    for (let i = 0; i < 30; i++) {
      const group = groups[i % 3]!
      await stack.client.send(
        new CreateScheduleCommand({
          Name: `s-${i}`,
          GroupName: group,
          ScheduleExpression: atExpression(i < 3 ? dueMs : dueMs + 3_600_000),
          FlexibleTimeWindow: { Mode: 'OFF' },
          Target: stack.target(`${group}/s-${i}`),
        }),
      )
    }
    // act
    const listed: string[] = []
    for await (const page of paginateListSchedules({ client: stack.client, pageSize: 8 }, {}))
      listed.push(...page.Schedules!.map((s) => `${s.GroupName}/${s.Name}`))
    await stack.scanner.runUntil(async () => (await approximateCount(stack.sqs, stack.queue.url)) >= 3, 10_000)
    await stack.client.send(new DeleteScheduleGroupCommand({ Name: 'beta' }))
    // assess
    expect(listed).toHaveLength(30)
    expect(listed.filter((s) => s.startsWith('beta/'))).toHaveLength(10)
    const bodies = (await receiveAll(stack.sqs, stack.queue.url)).map((m) => m.Body).sort()
    expect(bodies).toEqual(['alpha/s-0', 'beta/s-1', 'gamma/s-2'])
    expect(await stack.delayQueue.get('scheduler:beta:s-4')).toBeNull()
    await expect(stack.client.send(new GetScheduleCommand({ Name: 's-4', GroupName: 'beta' }))).rejects.toBeInstanceOf(
      ResourceNotFoundException,
    )
    expect(await stack.delayQueue.get('scheduler:gamma:s-5')).toMatchObject({ status: 'scheduled' })
  })
})
