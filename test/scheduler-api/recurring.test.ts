// cron() and rate() schedules onto our recurring schedules: zone, StartDate/EndDate and State carried over; an
// occurrence reaches the queue as the Input; a series with ActionAfterCompletion DELETE goes once it has ended.
import {
  CreateScheduleCommand,
  GetScheduleCommand,
  ResourceNotFoundException,
  UpdateScheduleCommand,
  ValidationException,
} from '@aws-sdk/client-scheduler'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { approximateCount, receiveAll } from '../support/sqs'
import { startSchedulerStack } from './scheduler-stack'

let stack: Awaited<ReturnType<typeof startSchedulerStack>>
beforeAll(async () => {
  stack = await startSchedulerStack()
})
afterAll(() => stack?.close())

describe('cron() and rate() schedules', () => {
  it('becomes a recurring schedule with its zone, dates and state, and follows a full replace', async () => {
    const start = new Date('2027-03-01T00:00:00Z')
    const end = new Date('2027-06-01T00:00:00Z')
    const input = {
      Name: 'weekday-digest',
      ScheduleExpression: 'cron(0 9 ? * 2-6 *)',
      ScheduleExpressionTimezone: 'Europe/Berlin',
      StartDate: start,
      EndDate: end,
      FlexibleTimeWindow: { Mode: 'FLEXIBLE' as const, MaximumWindowInMinutes: 15 },
      Target: stack.target('{"digest":true}'),
    }
    await stack.client.send(new CreateScheduleCommand(input))
    const recurring = await stack.delayQueue.getSchedule('scheduler:default:weekday-digest')
    expect(recurring).toMatchObject({
      cron: '0 9 * * 1-5',
      timezone: 'Europe/Berlin',
      startAt: '2027-03-01T00:00:00.000Z',
      endAt: '2027-06-01T00:00:00.000Z',
      paused: false,
      payload: '{"digest":true}',
      // Monday 1 March 2027, 09:00 in Berlin (UTC+1).
      nextRunAt: '2027-03-01T08:00:00.000Z',
    })
    const got = await stack.client.send(new GetScheduleCommand({ Name: 'weekday-digest' }))
    expect(got).toMatchObject({ StartDate: start, EndDate: end, FlexibleTimeWindow: input.FlexibleTimeWindow })

    await stack.client.send(
      new UpdateScheduleCommand({ ...input, ScheduleExpression: 'rate(6 hours)', State: 'DISABLED' }),
    )
    expect(await stack.delayQueue.getSchedule('scheduler:default:weekday-digest')).toMatchObject({
      everyMs: 21_600_000,
      paused: true,
      nextRunAt: null,
    })
  })

  it('refuses an AWS cron it cannot run the same way with ValidationException', async () => {
    const create = stack.client.send(
      new CreateScheduleCommand({
        Name: 'nearest-weekday',
        ScheduleExpression: 'cron(0 9 15W * ? *)',
        FlexibleTimeWindow: { Mode: 'OFF' },
        Target: stack.target('x'),
      }),
    )
    await expect(create).rejects.toBeInstanceOf(ValidationException)
  })

  it('fires a rate() occurrence at its StartDate as the raw Input, and deletes the ended series (ActionAfterCompletion DELETE)', async () => {
    const startMs = Math.ceil(Date.now() / 1000) * 1000 + 2_000
    await stack.client.send(
      new CreateScheduleCommand({
        Name: 'heartbeat',
        ScheduleExpression: 'rate(1 minute)',
        StartDate: new Date(startMs),
        EndDate: new Date(startMs + 1_000),
        FlexibleTimeWindow: { Mode: 'OFF' },
        Target: stack.target('beat'),
        ActionAfterCompletion: 'DELETE',
      }),
    )
    await stack.scanner.runUntil(async () => (await approximateCount(stack.sqs, stack.queue.url)) >= 1, 15_000)
    const [message] = await receiveAll(stack.sqs, stack.queue.url)
    expect(message?.Body).toBe('beat')
    expect(Number(message?.Attributes?.SentTimestamp)).toBeGreaterThanOrEqual(startMs)
    await expect(stack.client.send(new GetScheduleCommand({ Name: 'heartbeat' }))).rejects.toBeInstanceOf(
      ResourceNotFoundException,
    )
  })
})
