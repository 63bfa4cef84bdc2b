// Seed: invoice reminders written for EventBridge Scheduler (examples/scheduler-migration) run unchanged against the
// delay queue's Scheduler-compatible API: only the client's endpoint differs, and the consumer gets the same body.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { schedulerClient } from '../../examples/scheduler-migration/client'
import { reminderHandler } from '../../examples/scheduler-migration/handler'
import { cancelReminder, type Reminder, scheduleReminder } from '../../examples/scheduler-migration/reminders'
import { approximateCount, receiveAll } from '../support/sqs'
import { startSchedulerStack } from '../scheduler-api/scheduler-stack'

let stack: Awaited<ReturnType<typeof startSchedulerStack>>
beforeAll(async () => {
  stack = await startSchedulerStack()
})
afterAll(() => stack?.close())

describe('example: invoice reminders moved from EventBridge Scheduler', () => {
  it('reminds about the unpaid invoice only, with the body the Scheduler consumer expects', async () => {
    // prepare: the application's own client, pointed at the delay queue by its environment alone
    // The SDK's defaults read region and credentials from the environment, as on AWS (the local ones are dummies).
    vi.stubEnv('AWS_REGION', 'us-east-1')
    vi.stubEnv('AWS_ACCESS_KEY_ID', 'local')
    vi.stubEnv('AWS_SECRET_ACCESS_KEY', 'local')
    const client = schedulerClient({ SCHEDULER_ENDPOINT: stack.server.url })
    const target = { queueArn: stack.queueArn, roleArn: 'arn:aws:iam::000000000000:role/scheduler-sends' }
    const dueMs = Date.now() + 1_500
    // act
    expect(await scheduleReminder(client, target, { invoiceId: 'A-1', email: 'a@example.com' }, dueMs)).toBe(true)
    expect(await scheduleReminder(client, target, { invoiceId: 'A-1', email: 'a@example.com' }, dueMs)).toBe(false)
    expect(await scheduleReminder(client, target, { invoiceId: 'B-2', email: 'b@example.com' }, dueMs)).toBe(true)
    expect(await cancelReminder(client, 'B-2')).toBe(true)
    await stack.scanner.runUntil(async () => (await approximateCount(stack.sqs, stack.queue.url)) >= 1, 10_000)
    // assess: the consumer written for Scheduler reads the message as it is
    const sent: Reminder[] = []
    const messages = await receiveAll(stack.sqs, stack.queue.url)
    await reminderHandler(async (r) => void sent.push(r))({
      Records: messages.map((m) => ({ body: m.Body! })),
    } as never)
    expect(sent).toEqual([{ invoiceId: 'A-1', email: 'a@example.com' }])
    expect(await cancelReminder(client, 'A-1')).toBe(false) // fired, and deleted after completion
    client.destroy()
    vi.unstubAllEnvs()
  })
})
