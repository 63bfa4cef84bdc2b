// Every time in the SQS message is on Redis's clock: a scanner whose own clock is off writes the same dispatchedAt.
import { afterAll, describe, expect, it, vi } from 'vitest'
import { job, testStore } from '../support/engine'
import { pendingCount, testScanner } from '../support/scanner'
import { createQueue, receiveAll, sqsClient } from '../support/sqs'

const sqs = sqsClient()
afterAll(() => {
  vi.restoreAllMocks()
  sqs.destroy()
})

describe('message times', () => {
  it("writes dispatchedAt on Redis's clock when the scanner's clock is 8 s slow", async () => {
    // prepare: a job due in 300 ms, and a scanner whose clock runs 8 s behind Redis's
    const t = testStore()
    const q = await createQueue(sqs, 'clock')
    const s = testScanner(t, { queues: { orders: q.url } })
    const { dueMs } = await t.store.enqueue(job({ id: 'timed', due: { delayMs: 300 } }))
    const realNow = Date.now.bind(Date)
    const slow = vi.spyOn(Date, 'now').mockImplementation(() => realNow() - 8_000)
    // act
    try {
      await s.runUntil(async () => (await pendingCount(t.store)) === 0, 10_000)
    } finally {
      slow.mockRestore()
    }
    // assess: dispatched at or after its due time, by well under a second, on the same clock as runAt
    const [message] = await receiveAll(sqs, q.url)
    const body = JSON.parse(message!.Body!)
    expect(Date.parse(body.runAt)).toBe(dueMs)
    const dispatchedAfterDue = Date.parse(body.dispatchedAt) - dueMs
    expect(dispatchedAfterDue).toBeGreaterThanOrEqual(0)
    expect(dispatchedAfterDue).toBeLessThan(2_000)
    await s.close()
    await t.close()
  })
})
