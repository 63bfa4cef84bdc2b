// Schedules made through the Scheduler-compatible API are the engine's own jobs and recurring schedules: the operator
// dashboard lists and looks them up like any other.
import { CreateScheduleCommand, CreateScheduleGroupCommand } from '@aws-sdk/client-scheduler'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type Dashboard, startDashboard } from '../../src/ops/dashboard/server'
import { atExpression, startSchedulerStack } from './scheduler-stack'

let stack: Awaited<ReturnType<typeof startSchedulerStack>>
let dashboard: Dashboard
beforeAll(async () => {
  stack = await startSchedulerStack()
  dashboard = await startDashboard(stack.engine)
})
afterAll(async () => {
  await dashboard?.close()
  await stack?.close()
})

const json = async (path: string) => (await (await fetch(`${dashboard.url}${path}`)).json()) as Record<string, any>

describe('the dashboard and Scheduler-made schedules', () => {
  it('shows an at() schedule as a pending job and a cron() schedule among the schedules, named by group and name', async () => {
    const runAtMs = Math.ceil(Date.now() / 1000) * 1000 + 3_600_000
    await stack.client.send(new CreateScheduleGroupCommand({ Name: 'billing' }))
    await stack.client.send(
      new CreateScheduleCommand({
        Name: 'invoice-7',
        GroupName: 'billing',
        ScheduleExpression: atExpression(runAtMs),
        FlexibleTimeWindow: { Mode: 'OFF' },
        Target: stack.target('{"invoice":7}'),
      }),
    )
    await stack.client.send(
      new CreateScheduleCommand({
        Name: 'nightly',
        GroupName: 'billing',
        ScheduleExpression: 'cron(0 2 * * ? *)',
        ScheduleExpressionTimezone: 'Europe/Paris',
        FlexibleTimeWindow: { Mode: 'OFF' },
        Target: stack.target('{"run":"nightly"}'),
      }),
    )

    const job = await json('/api/jobs/scheduler:billing:invoice-7')
    expect(job).toMatchObject({ status: 'scheduled', queue: 'target', runAt: new Date(runAtMs).toISOString() })
    expect(job.payload).toBe('{"invoice":7}')
    const overview = await json('/api/overview')
    expect(overview.schedules).toContainEqual(
      expect.objectContaining({ id: 'scheduler:billing:nightly', cron: '0 2 * * *', timezone: 'Europe/Paris' }),
    )
  })
})
