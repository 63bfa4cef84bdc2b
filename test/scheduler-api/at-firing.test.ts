// at() schedules fire into their SQS queue on their second, with the Target's Input as the message body (what
// EventBridge Scheduler delivers), and ActionAfterCompletion DELETE removes the schedule once it has fired (its name is
// free for a new schedule).
// How late they fire is a figure of `npm run bench:scheduler-at` (docs/benchmarks.md), not of this test: on a shared
// machine a timer can run late by any amount. This test bounds only what the mechanism rules out: a message before
// its second, a lost or doubled one, a body other than the Input, and a firing later than any working scanner is.
import { CreateScheduleCommand, GetScheduleCommand, ResourceNotFoundException } from '@aws-sdk/client-scheduler'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { approximateCount, receiveAll } from '../support/sqs'
import { atExpression, startSchedulerStack } from './scheduler-stack'

let stack: Awaited<ReturnType<typeof startSchedulerStack>>
beforeAll(async () => {
  stack = await startSchedulerStack()
})
afterAll(() => stack?.close())

/**
 * Later than this, the scanner did not fire the job on its wake signal or its next poll (1 s): it is broken. Generous
 * beyond that, so that a machine busy with other work never fails the test.
 */
const BROKEN_SCANNER_MS = 5_000

describe('at() schedules firing into SQS', () => {
  it('delivers each Input once, as its body, never before its second and within seconds of it, and DELETE removes a schedule that fired', async () => {
    // Prepare: 40 schedules over 4 whole seconds from 3 s on; bodies that are not JSON, and JSON, as Scheduler allows.
    const firstSecond = Math.ceil(Date.now() / 1000) * 1000 + 3_000
    const atMs = new Map<string, number>()
    for (let i = 0; i < 40; i++) {
      const at = firstSecond + (i % 4) * 1000
      const input = i % 2 ? `plain text ${i}` : JSON.stringify({ n: i, text: 'Grüße "quoted"' })
      atMs.set(input, at)
      await stack.client.send(
        new CreateScheduleCommand({
          Name: `fire-${i}`,
          ScheduleExpression: atExpression(at),
          FlexibleTimeWindow: { Mode: 'OFF' },
          Target: stack.target(input),
          ActionAfterCompletion: i === 0 || i === 2 ? 'DELETE' : 'NONE',
        }),
      )
    }

    // Act: the scanner runs until every message is in the queue.
    await stack.scanner.runUntil(async () => (await approximateCount(stack.sqs, stack.queue.url)) >= 40, 20_000)
    const messages = await receiveAll(stack.sqs, stack.queue.url)

    // Assess: the bodies are the Inputs, each arrived once; none before its second, none later than a working scanner.
    expect(messages.map((m) => m.Body).sort()).toEqual([...atMs.keys()].sort())
    const lateness = messages.map((m) => Number(m.Attributes!.SentTimestamp) - atMs.get(m.Body!)!)
    expect(Math.min(...lateness)).toBeGreaterThanOrEqual(0)
    expect(Math.max(...lateness)).toBeLessThan(BROKEN_SCANNER_MS)

    await expect(stack.client.send(new GetScheduleCommand({ Name: 'fire-0' }))).rejects.toBeInstanceOf(
      ResourceNotFoundException,
    )
    // A fired DELETE schedule's name is free again at once, as on AWS (nothing read it since it fired).
    const again = atExpression(Date.now() + 3_600_000)
    await stack.client.send(
      new CreateScheduleCommand({
        Name: 'fire-2',
        ScheduleExpression: again,
        FlexibleTimeWindow: { Mode: 'OFF' },
        Target: stack.target('again'),
      }),
    )
    expect(await stack.client.send(new GetScheduleCommand({ Name: 'fire-2' }))).toMatchObject({
      ScheduleExpression: again,
      ActionAfterCompletion: 'NONE',
    })
    const kept = await stack.client.send(new GetScheduleCommand({ Name: 'fire-1' }))
    expect(kept).toMatchObject({ Name: 'fire-1', State: 'ENABLED', ActionAfterCompletion: 'NONE' })
  })
})
