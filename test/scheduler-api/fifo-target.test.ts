// A FIFO target queue: SqsParameters.MessageGroupId becomes the message's group, as Scheduler sends it, and the body
// is still the Input.
import { CreateScheduleCommand, ValidationException } from '@aws-sdk/client-scheduler'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { approximateCount, receiveAll } from '../support/sqs'
import { atExpression, startSchedulerStack } from './scheduler-stack'

let stack: Awaited<ReturnType<typeof startSchedulerStack>>
beforeAll(async () => {
  stack = await startSchedulerStack({ fifo: true })
})
afterAll(() => stack?.close())

describe('at() schedules into a FIFO queue', () => {
  it('sends each Input with its MessageGroupId', async () => {
    const atMs = Math.ceil(Date.now() / 1000) * 1000 + 1_000
    for (const [name, group] of [
      ['first', 'customer-1'],
      ['second', 'customer-2'],
    ] as const) {
      await stack.client.send(
        new CreateScheduleCommand({
          Name: name,
          ScheduleExpression: atExpression(atMs),
          FlexibleTimeWindow: { Mode: 'OFF' },
          Target: { ...stack.target(`{"name":"${name}"}`), SqsParameters: { MessageGroupId: group } },
        }),
      )
    }
    await stack.scanner.runUntil(async () => (await approximateCount(stack.sqs, stack.queue.url)) >= 2, 10_000)
    const messages = await receiveAll(stack.sqs, stack.queue.url)
    const seen = messages.map((m) => [m.Body, m.Attributes!.MessageGroupId]).sort()
    expect(seen).toEqual([
      ['{"name":"first"}', 'customer-1'],
      ['{"name":"second"}', 'customer-2'],
    ])
  })

  it('refuses a MessageGroupId that is not a valid group id with ValidationException', async () => {
    const create = stack.client.send(
      new CreateScheduleCommand({
        Name: 'bad-group',
        ScheduleExpression: atExpression(Date.now() + 3_600_000),
        FlexibleTimeWindow: { Mode: 'OFF' },
        Target: { ...stack.target('x'), SqsParameters: { MessageGroupId: 'has\nnewline' } },
      }),
    )
    await expect(create).rejects.toBeInstanceOf(ValidationException)
    await expect(create).rejects.toMatchObject({
      message: expect.stringMatching(/^Target.SqsParameters.MessageGroupId: /),
    })
  })
})
