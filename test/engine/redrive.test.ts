// DLQ redrive: messages business Lambdas gave up on come back, through the delay queue or straight to their queue.
import { SendMessageCommand } from '@aws-sdk/client-sqs'
import { afterAll, describe, expect, it } from 'vitest'
import { messageBody } from '../../src/sqs/envelope'
import { redrive } from '../../src/ops/redrive'
import { job, testStore } from '../support/engine'
import { pendingCount, testScanner } from '../support/scanner'
import { approximateCount, countIds, createQueue, receiveAll, sqsClient } from '../support/sqs'

const sqs = sqsClient()
afterAll(() => sqs.destroy())

async function deadLetter(url: string, id: string, payload: unknown) {
  const body = messageBody({ id, queue: 'orders', payloadJson: JSON.stringify(payload), dueMs: 0, createdAtMs: 0 }, 0)
  await sqs.send(new SendMessageCommand({ QueueUrl: url, MessageBody: body }))
}

describe('DLQ redrive', () => {
  it('schedules dead-lettered jobs again in the delay queue, and the scanner delivers them to their queue', async () => {
    // prepare
    const t = testStore()
    const target = await createQueue(sqs, 'orders')
    const dlq = await createQueue(sqs, 'orders-dlq')
    await deadLetter(dlq.url, 'refund-7', { refund: 7 })
    await deadLetter(dlq.url, 'refund-8', { refund: 8 })
    await sqs.send(new SendMessageCommand({ QueueUrl: dlq.url, MessageBody: 'not json' }))
    // act
    const report = await redrive({ sqs, dlqUrl: dlq.url, mode: { kind: 'schedule', store: t.store, delayMs: 100 } })
    // assess
    expect(report.moved).toBe(2)
    expect(report.skipped.map((s) => s.reason)).toEqual(['not a job message (no id, queue and payload)'])
    expect(await t.store.get('refund-7')).toMatchObject({ status: 'scheduled', payload: { refund: 7 } })
    const s = testScanner(t, { queues: { orders: target.url } })
    await s.runUntil(async () => (await pendingCount(t.store)) === 0, 5_000)
    const arrived = await receiveAll(sqs, target.url)
    expect([...countIds(arrived).keys()].sort()).toEqual(['refund-7', 'refund-8'])
    expect(JSON.parse(arrived[0]!.Body!).payload).toHaveProperty('refund')
    expect(await approximateCount(sqs, dlq.url)).toBe(1) // the bad message stays for a human
    await s.close()
    await t.close()
  })

  it('leaves a message in the DLQ when a pending job already has its id', async () => {
    const t = testStore()
    const dlq = await createQueue(sqs, 'dup-dlq')
    await t.store.enqueue(job({ id: 'taken', schedule: { delayMs: 60_000 } }))
    await deadLetter(dlq.url, 'taken', 1)
    const report = await redrive({ sqs, dlqUrl: dlq.url, mode: { kind: 'schedule', store: t.store, delayMs: 0 } })
    expect(report).toEqual({
      moved: 0,
      skipped: [expect.objectContaining({ reason: expect.stringMatching(/already/) })],
    })
    expect((await t.store.get('taken'))!.payload).toEqual({ n: expect.any(Number) })
    await t.close()
  })

  it('sends dead-lettered messages straight back to their queue, up to a maximum', async () => {
    const target = await createQueue(sqs, 'direct')
    const dlq = await createQueue(sqs, 'direct-dlq')
    for (let i = 0; i < 3; i++) await deadLetter(dlq.url, `d-${i}`, i)
    const report = await redrive({
      sqs,
      dlqUrl: dlq.url,
      mode: { kind: 'direct', queues: { orders: target.url } },
      max: 2,
    })
    expect(report.moved).toBe(2)
    const arrived = await receiveAll(sqs, target.url)
    expect(arrived).toHaveLength(2)
    expect(arrived[0]!.MessageAttributes!.jobId!.StringValue).toMatch(/^d-\d$/)
    expect(await approximateCount(sqs, dlq.url)).toBe(1)
  })
})
