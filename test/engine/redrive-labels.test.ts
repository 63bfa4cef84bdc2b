// A job's tags and flow key ride in its SQS message (src/sqs/envelope.ts), so a job redriven from a DLQ through the
// delay queue comes back with them: found by its tag, held by its key's rate and pause. Untagged jobs' messages carry
// neither field.
import { DeleteMessageCommand, SendMessageCommand } from '@aws-sdk/client-sqs'
import { afterAll, describe, expect, it } from 'vitest'
import { messageBody } from '../../src/sqs/envelope'
import { redrive, type RedriveOptions } from '../../src/ops/redrive'
import { readTagPage } from '../../src/store/tag-page'
import { job, testStore } from '../support/engine'
import { pendingCount, testScanner } from '../support/scanner'
import { approximateCount, createTargetWithDlq, receiveAll, sqsClient } from '../support/sqs'

const sqs = sqsClient()
afterAll(() => sqs.destroy())

const LIMITS = { maxHorizonMs: 400 * 86_400_000, maxMessageBytes: 1_048_576 }

function schedule(store: ReturnType<typeof testStore>['store'], delayMs = 0): RedriveOptions['mode'] {
  return { kind: 'schedule', store, delayMs }
}

/** A DLQ message as SQS moves one there: the body the scanner wrote, unchanged. */
async function deadLetter(url: string, body: string) {
  await sqs.send(new SendMessageCommand({ QueueUrl: url, MessageBody: body }))
}

describe('the message carries a job’s tags and flow key', () => {
  it('redrives a tagged, flow-keyed job back with its tags and key; an untagged job’s message has neither', async () => {
    // prepare: a tagged job with a flow key and a plain one, dispatched by a scanner
    const t = testStore()
    const { target, dlq } = await createTargetWithDlq(sqs, 'orders')
    await t.store.enqueue(job({ id: 'tagged-1', tags: ['order:42', 'user=7'], flowKey: 'mail"provider\\1' }))
    await t.store.enqueue(job({ id: 'plain-1' }))
    const s = testScanner(t, { queues: { orders: target.url } })
    await s.runUntil(async () => (await pendingCount(t.store)) === 0, 5_000)
    await s.close()
    const arrived = await receiveAll(sqs, target.url)
    const bodies = new Map(arrived.map((m) => [JSON.parse(m.Body!).id as string, m.Body!]))
    // assess the messages: the labels only where the job has them
    expect(JSON.parse(bodies.get('tagged-1')!)).toMatchObject({
      tags: ['order:42', 'user=7'],
      flowKey: 'mail"provider\\1',
    })
    expect(Object.keys(JSON.parse(bodies.get('plain-1')!))).toEqual([
      'id',
      'queue',
      'payload',
      'runAt',
      'createdAt',
      'dispatchedAt',
    ])
    expect((await readTagPage(t.store, 'order:42', { limit: 10, cursor: null })).jobs).toEqual([])
    // the consumer gave up on the tagged job: SQS moved its message to the DLQ
    const tagged = arrived.find((m) => JSON.parse(m.Body!).id === 'tagged-1')!
    await sqs.send(new DeleteMessageCommand({ QueueUrl: target.url, ReceiptHandle: tagged.ReceiptHandle! }))
    await deadLetter(dlq.url, tagged.Body!)
    const config = { queues: { orders: target.url }, ...LIMITS }
    // act
    const report = await redrive({ sqs, waitSeconds: 0, dlqUrl: dlq.url, config, mode: schedule(t.store, 60_000) })
    // assess: listed by its tag again, with its flow key
    expect(report).toMatchObject({ moved: 1, skipped: [] })
    const page = await readTagPage(t.store, 'order:42', { limit: 10, cursor: null })
    expect(page.jobs.map((j) => j.id)).toEqual(['tagged-1'])
    expect(await t.store.get('tagged-1')).toMatchObject({
      status: 'scheduled',
      tags: ['order:42', 'user=7'],
      flowKey: 'mail"provider\\1',
    })
    await t.close()
  })

  it('sends a tagged message straight back with --direct, its tags and flow key in the body as they were', async () => {
    const { target, dlq } = await createTargetWithDlq(sqs, 'orders')
    const body = messageBody(
      { id: 'd-tag', queue: 'orders', payloadJson: '1', dueMs: 0, createdAtMs: 0, tags: ['a'], flowKey: 'k' },
      0,
    )
    await deadLetter(dlq.url, body)
    const config = { queues: { orders: target.url }, ...LIMITS }
    const report = await redrive({ sqs, waitSeconds: 0, dlqUrl: dlq.url, config, mode: { kind: 'direct' } })
    expect(report).toMatchObject({ moved: 1, skipped: [] })
    const [again] = await receiveAll(sqs, target.url)
    expect(again!.Body).toBe(body)
    expect(JSON.parse(body)).toMatchObject({ tags: ['a'], flowKey: 'k' })
  })
})

describe('redrive holds tags and flow keys to the enqueue rules', () => {
  const plain = messageBody({ id: 'bad-1', queue: 'orders', payloadJson: '1', dueMs: 0, createdAtMs: 0 }, 0)
  const withField = (field: string, value: unknown) =>
    `${plain.slice(0, -1)},${JSON.stringify(field)}:${JSON.stringify(value)}}`

  it.each([
    ['a tag outside the tag alphabet', withField('tags', ['order 42']), /tags\[0\]: must be 1-64 characters/],
    ['tags that are not an array', withField('tags', 'order:42'), /tags: must be an array of at most 10/],
    ['eleven tags', withField('tags', [...'abcdefghijk']), /tags: must be an array of at most 10/],
    ['a flow key with a space', withField('flowKey', 'mail provider'), /flowKey: must be 1-128 printable ASCII/],
  ])('refuses a message with %s in both modes and leaves it in the DLQ', async (_, body, reason) => {
    // prepare
    const t = testStore()
    const { target, dlq } = await createTargetWithDlq(sqs, 'orders')
    await deadLetter(dlq.url, body)
    await deadLetter(dlq.url, body)
    const config = { queues: { orders: target.url }, ...LIMITS }
    // act: one message in each mode (a refused message stays invisible for the rest of the run)
    const scheduled = await redrive({ sqs, waitSeconds: 0, dlqUrl: dlq.url, config, mode: schedule(t.store), max: 1 })
    const direct = await redrive({ sqs, waitSeconds: 0, dlqUrl: dlq.url, config, mode: { kind: 'direct' }, max: 1 })
    // assess
    for (const report of [scheduled, direct]) {
      expect(report.moved).toBe(0)
      expect(report.skipped).toEqual([
        {
          messageId: expect.any(String),
          jobId: 'bad-1',
          reason: expect.stringMatching(/^refused by the job rules: /),
        },
      ])
      expect(report.skipped[0]!.reason).toMatch(reason)
    }
    expect(await t.store.get('bad-1')).toBeNull()
    expect(await approximateCount(sqs, target.url)).toBe(0)
    expect(await approximateCount(sqs, dlq.url)).toBe(2)
    await t.close()
  })
})
