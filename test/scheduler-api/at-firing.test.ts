// at() schedules fire into their SQS queue on their second, with the Target's Input as the message body (what
// EventBridge Scheduler delivers), and ActionAfterCompletion DELETE removes the schedule once it has fired.
import { CreateScheduleCommand, GetScheduleCommand, ResourceNotFoundException } from '@aws-sdk/client-scheduler'
import { monitorEventLoopDelay } from 'node:perf_hooks'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { approximateCount, receiveAll } from '../support/sqs'
import { atExpression, startSchedulerStack } from './scheduler-stack'

let stack: Awaited<ReturnType<typeof startSchedulerStack>>
beforeAll(async () => {
  stack = await startSchedulerStack()
})
afterAll(() => stack?.close())

const quantile = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]!

describe('at() schedules firing into SQS', () => {
  it('delivers each Input exactly as its body within 50 ms (p99) of its second, and DELETE removes a schedule that fired', async () => {
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
          ActionAfterCompletion: i === 0 ? 'DELETE' : 'NONE',
        }),
      )
    }

    // Act: the scanner runs until every message is in the queue. It runs in this process: how late this process's
    // timers ran (other test files and workers share the machine's CPUs) is measured beside it.
    const stalls = monitorEventLoopDelay({ resolution: 5 })
    stalls.enable()
    await stack.scanner.runUntil(async () => (await approximateCount(stack.sqs, stack.queue.url)) >= 40, 20_000)
    stalls.disable()
    const messages = await receiveAll(stack.sqs, stack.queue.url)

    // Assess: the bodies are the Inputs, each arrived once, and how late each was after its second.
    expect(messages.map((m) => m.Body).sort()).toEqual([...atMs.keys()].sort())
    const lateness = messages.map((m) => Number(m.Attributes!.SentTimestamp) - atMs.get(m.Body!)!).sort((a, b) => a - b)
    // The scanner's own budget is 50 ms at p99; a stall of this process (the CPU taken by others) adds what it took.
    const stalledMs = Math.max(0, stalls.max / 1e6 - 5)
    console.log(
      `at() firing lateness ms: p50 ${quantile(lateness, 0.5)} p99 ${quantile(lateness, 0.99)} max ${lateness.at(-1)}` +
        ` (longest stall of this process: ${stalledMs.toFixed(0)} ms)`,
    )
    expect(lateness[0]).toBeGreaterThanOrEqual(0)
    expect(quantile(lateness, 0.99)).toBeLessThanOrEqual(50 + stalledMs)

    await expect(stack.client.send(new GetScheduleCommand({ Name: 'fire-0' }))).rejects.toBeInstanceOf(
      ResourceNotFoundException,
    )
    const kept = await stack.client.send(new GetScheduleCommand({ Name: 'fire-1' }))
    expect(kept).toMatchObject({ Name: 'fire-1', State: 'ENABLED', ActionAfterCompletion: 'NONE' })
  })
})
