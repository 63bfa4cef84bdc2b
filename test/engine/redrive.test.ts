// DLQ redrive: messages business Lambdas gave up on come back, through the delay queue or straight to their queue,
// and only to the queue whose DLQ they were in, held to the API's job rules.
import { ChangeMessageVisibilityCommand, DeleteMessageCommand, SendMessageCommand } from '@aws-sdk/client-sqs'
import { afterAll, describe, expect, it } from 'vitest'
import { deduplicationId, messageBody } from '../../src/sqs/envelope'
import { redrive, RedriveTargetError, type RedriveOptions } from '../../src/ops/redrive'
import { dlqNameOf, targetOfDlq } from '../../src/ops/dlq-target'
import { job, testStore } from '../support/engine'
import { pendingCount, testScanner } from '../support/scanner'
import { approximateCount, countIds, createTargetWithDlq, receiveAll, sqsClient } from '../support/sqs'

const sqs = sqsClient()
afterAll(() => sqs.destroy())

// The local SQS answers a receive at once: no need to wait the default second for each of the two empty receives
// that end a run (the DLQ holds every message before a run starts).
const LIMITS = { maxHorizonMs: 400 * 86_400_000, maxMessageBytes: 1_048_576 }

/** A message as the scanner sent it, in a DLQ: its body names `queue`; FIFO DLQs keep the message's group. */
async function deadLetter(url: string, id: string, payload: unknown, queue = 'orders', groupId?: string, sentMs = 0) {
  const body = messageBody({ id, queue, payloadJson: JSON.stringify(payload), dueMs: 0, createdAtMs: 0 }, sentMs)
  await sqs.send(
    new SendMessageCommand({
      QueueUrl: url,
      MessageBody: body,
      ...(groupId ? { MessageGroupId: groupId, MessageDeduplicationId: deduplicationId(id, 1) } : {}),
    }),
  )
}

function schedule(store: ReturnType<typeof testStore>['store'], delayMs = 0): RedriveOptions['mode'] {
  return { kind: 'schedule', store, delayMs }
}

describe('DLQ redrive', () => {
  it('schedules dead-lettered jobs again in the delay queue, and the scanner delivers them to their queue', async () => {
    // prepare
    const t = testStore()
    const { target, dlq } = await createTargetWithDlq(sqs, 'orders')
    await deadLetter(dlq.url, 'refund-7', { refund: 7 })
    await deadLetter(dlq.url, 'refund-8', { refund: 8 })
    await sqs.send(new SendMessageCommand({ QueueUrl: dlq.url, MessageBody: 'not json' }))
    const config = { queues: { orders: target.url }, ...LIMITS }
    // act
    const report = await redrive({ sqs, waitSeconds: 0, dlqUrl: dlq.url, config, mode: schedule(t.store, 100) })
    // assess
    expect(report.queue).toBe('orders')
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
    const { target, dlq } = await createTargetWithDlq(sqs, 'dup')
    await t.store.enqueue(job({ id: 'taken', due: { delayMs: 60_000 } }))
    await deadLetter(dlq.url, 'taken', 1)
    const config = { queues: { orders: target.url }, ...LIMITS }
    const report = await redrive({ sqs, waitSeconds: 0, dlqUrl: dlq.url, config, mode: schedule(t.store) })
    expect(report).toEqual({
      queue: 'orders',
      moved: 0,
      skipped: [expect.objectContaining({ jobId: 'taken', reason: expect.stringMatching(/already/) })],
    })
    expect((await t.store.get('taken'))!.payload).toEqual({ n: expect.any(Number) })
    await t.close()
  })

  it('sends dead-lettered messages straight back to their queue, up to a maximum', async () => {
    const { target, dlq } = await createTargetWithDlq(sqs, 'direct')
    for (let i = 0; i < 3; i++) await deadLetter(dlq.url, `d-${i}`, i)
    const config = { queues: { orders: target.url }, ...LIMITS }
    const report = await redrive({ sqs, waitSeconds: 0, dlqUrl: dlq.url, config, mode: { kind: 'direct' }, max: 2 })
    expect(report.moved).toBe(2)
    const arrived = await receiveAll(sqs, target.url)
    expect(arrived).toHaveLength(2)
    expect(arrived[0]!.MessageAttributes!.jobId!.StringValue).toMatch(/^d-\d$/)
    expect(await approximateCount(sqs, dlq.url)).toBe(1)
  })
})

describe('DLQ redrive stays in its lane', () => {
  it('refuses a message whose body names another queue than the DLQ it is in, unless --queue names that queue', async () => {
    // prepare: messages in the emails DLQ whose body says "orders"
    const t = testStore()
    const emails = await createTargetWithDlq(sqs, 'emails')
    const orders = await createTargetWithDlq(sqs, 'orders')
    const config = { queues: { orders: orders.target.url, emails: emails.target.url }, ...LIMITS }
    for (const id of ['lane-1', 'lane-2', 'lane-3']) await deadLetter(emails.dlq.url, id, { to: id }, 'orders')
    // act: redrive the emails DLQ, one message in each mode (a refused message stays invisible for this run)
    const scheduled = await redrive({
      sqs,
      waitSeconds: 0,
      dlqUrl: emails.dlq.url,
      config,
      mode: schedule(t.store),
      max: 1,
    })
    const direct = await redrive({
      sqs,
      waitSeconds: 0,
      dlqUrl: emails.dlq.url,
      config,
      mode: { kind: 'direct' },
      max: 1,
    })
    // assess: refused, nothing stored or sent, the messages still in the DLQ
    for (const report of [scheduled, direct]) {
      expect(report).toEqual({
        queue: 'emails',
        moved: 0,
        skipped: [
          {
            messageId: expect.any(String),
            jobId: expect.stringMatching(/^lane-/),
            reason: expect.stringMatching(/names queue "orders" but this is the DLQ of "emails".*--queue/),
          },
        ],
      })
    }
    expect((await t.store.stats()).queues).toEqual({})
    expect(await approximateCount(sqs, orders.target.url)).toBe(0)
    expect(await approximateCount(sqs, emails.target.url)).toBe(0)
    expect(await approximateCount(sqs, emails.dlq.url)).toBe(3)
    // act: the operator says where it goes
    const moved = await redrive({
      sqs,
      waitSeconds: 0,
      dlqUrl: emails.dlq.url,
      config,
      queue: 'orders',
      mode: schedule(t.store),
    })
    // assess: the one message still visible is scheduled for orders
    expect(moved).toMatchObject({ queue: 'orders', moved: 1, skipped: [] })
    expect((await t.store.stats()).queues).toEqual({ orders: expect.objectContaining({ pending: 1 }) })
    expect(await approximateCount(sqs, emails.dlq.url)).toBe(2)
    await t.close()
  })

  it('sends messages straight to the queue --queue names, their body then naming that queue', async () => {
    const emails = await createTargetWithDlq(sqs, 'emails')
    const orders = await createTargetWithDlq(sqs, 'orders')
    const config = { queues: { orders: orders.target.url, emails: emails.target.url }, ...LIMITS }
    await deadLetter(emails.dlq.url, 'moved-1', { n: 1 }, 'emails') // an emails job the operator sends to orders
    const report = await redrive({
      sqs,
      waitSeconds: 0,
      dlqUrl: emails.dlq.url,
      config,
      queue: 'orders',
      mode: { kind: 'direct' },
    })
    expect(report).toMatchObject({ queue: 'orders', moved: 1, skipped: [] })
    const [arrived] = await receiveAll(sqs, orders.target.url)
    expect(JSON.parse(arrived!.Body!)).toMatchObject({ id: 'moved-1', queue: 'orders', payload: { n: 1 } })
    expect(await approximateCount(sqs, emails.target.url)).toBe(0)
  })

  it('refuses to start on a DLQ of no configured queue, or on a target queue itself', async () => {
    const t = testStore()
    const { target, dlq } = await createTargetWithDlq(sqs, 'orders')
    await deadLetter(dlq.url, 'stray-1', 1)
    const config = { queues: { other: target.url.replace(/orders-\w+$/, 'other') }, ...LIMITS }
    await expect(redrive({ sqs, waitSeconds: 0, dlqUrl: dlq.url, config, mode: schedule(t.store) })).rejects.toThrow(
      RedriveTargetError,
    )
    const own = { queues: { orders: target.url }, ...LIMITS }
    await expect(
      redrive({ sqs, waitSeconds: 0, dlqUrl: target.url, config: own, mode: { kind: 'direct' } }),
    ).rejects.toThrow(/is the target queue "orders" itself/)
    await expect(
      redrive({ sqs, waitSeconds: 0, dlqUrl: dlq.url, config: own, queue: 'nope', mode: { kind: 'direct' } }),
    ).rejects.toThrow(/--queue "nope" is not in QUEUES/)
    expect(await approximateCount(sqs, dlq.url)).toBe(1)
    expect(await t.store.get('stray-1')).toBeNull()
    await t.close()
  })

  it.each([
    ['an id the API refuses', 'bad id!', { ok: 1 }, /id: must be 1-128 characters/],
    ['a prototype-polluting payload', 'pp-1', JSON.parse('{"__proto__":{"admin":true}}'), /payload.__proto__/],
    ['a payload over the message size limit', 'big-1', 'x'.repeat(5_000), /the SQS message would be \d+ bytes/],
  ])('refuses %s in both modes and leaves it in the DLQ', async (_, id, payload, reason) => {
    // prepare: a smaller message limit than the message, so "too large" needs no megabyte
    const t = testStore()
    const { target, dlq } = await createTargetWithDlq(sqs, 'orders')
    const config = { queues: { orders: target.url }, maxHorizonMs: LIMITS.maxHorizonMs, maxMessageBytes: 4_096 }
    await deadLetter(dlq.url, id, payload)
    await deadLetter(dlq.url, id, payload)
    // act: one message in each mode (a refused message stays invisible for the rest of the run)
    const scheduled = await redrive({ sqs, waitSeconds: 0, dlqUrl: dlq.url, config, mode: schedule(t.store), max: 1 })
    const direct = await redrive({ sqs, waitSeconds: 0, dlqUrl: dlq.url, config, mode: { kind: 'direct' }, max: 1 })
    // assess
    for (const report of [scheduled, direct]) {
      expect(report.moved).toBe(0)
      expect(report.skipped).toEqual([
        { messageId: expect.any(String), jobId: id, reason: expect.stringMatching(reason) },
      ])
    }
    expect((await t.store.stats()).queues).toEqual({})
    expect(await approximateCount(sqs, target.url)).toBe(0)
    expect(await approximateCount(sqs, dlq.url)).toBe(2)
    await t.close()
  })

  it('refuses to schedule an occurrence of a recurring schedule again (its series would run twice)', async () => {
    const t = testStore()
    const { target, dlq } = await createTargetWithDlq(sqs, 'orders')
    await deadLetter(dlq.url, 'daily@1767225600000', 1)
    const config = { queues: { orders: target.url }, ...LIMITS }
    const report = await redrive({ sqs, waitSeconds: 0, dlqUrl: dlq.url, config, mode: schedule(t.store) })
    expect(report.skipped).toEqual([expect.objectContaining({ reason: expect.stringMatching(/--direct/) })])
    expect(await t.store.get('daily@1767225600000')).toBeNull()
    await t.close()
  })
})

describe('DLQ redrive of FIFO queues', () => {
  it('sends a FIFO message back with its group, not swallowed as a duplicate of its first delivery', async () => {
    // prepare: the first delivery went through the target queue (its dedup id is in SQS's 5-minute window) ...
    const { target, dlq } = await createTargetWithDlq(sqs, 'digest.fifo')
    const config = { queues: { 'digest.fifo': target.url }, ...LIMITS }
    await deadLetter(target.url, 'fifo-1', { n: 1 }, 'digest.fifo', 'user-42')
    const [first] = await receiveAll(sqs, target.url)
    await sqs.send(new DeleteMessageCommand({ QueueUrl: target.url, ReceiptHandle: first!.ReceiptHandle! })) // SQS moved it
    // ... and the consumer gave up on it: it is in the DLQ, with its group
    await deadLetter(dlq.url, 'fifo-1', { n: 1 }, 'digest.fifo', 'user-42')
    // act
    const report = await redrive({ sqs, waitSeconds: 0, dlqUrl: dlq.url, config, mode: { kind: 'direct' } })
    // assess
    expect(report).toMatchObject({ queue: 'digest.fifo', moved: 1, skipped: [] })
    const [again, ...more] = await receiveAll(sqs, target.url)
    expect(more).toHaveLength(0)
    expect(again!.Attributes!.MessageGroupId).toBe('user-42')
    expect(again!.Attributes!.MessageDeduplicationId).not.toBe(deduplicationId('fifo-1', 1))
    expect(JSON.parse(again!.Body!)).toMatchObject({ id: 'fifo-1', payload: { n: 1 } })
  })

  it('schedules a FIFO message again with its group id in the job', async () => {
    const t = testStore()
    const { target, dlq } = await createTargetWithDlq(sqs, 'digest.fifo')
    const config = { queues: { 'digest.fifo': target.url }, ...LIMITS }
    await deadLetter(dlq.url, 'fifo-2', { n: 2 }, 'digest.fifo', 'user-7')
    await deadLetter(dlq.url, 'fifo-3', { n: 3 }, 'digest.fifo', 'fifo-3') // no group of its own: the job id
    const report = await redrive({ sqs, waitSeconds: 0, dlqUrl: dlq.url, config, mode: schedule(t.store, 60_000) })
    expect(report).toMatchObject({ moved: 2, skipped: [] })
    expect(await t.store.get('fifo-2')).toMatchObject({ queue: 'digest.fifo', groupId: 'user-7' })
    expect(await t.store.get('fifo-3')).not.toHaveProperty('groupId')
    await t.close()
  })

  it('schedules a FIFO job again at once: a new incarnation, not swallowed as a duplicate of its first delivery', async () => {
    // prepare: a message the scanner sent a minute ago, failed by its consumer at once; the job scheduled again has a
    // new creation time, so its deduplication id is not the first delivery's (test/engine/fifo-dedup.test.ts)
    const t = testStore()
    const { target, dlq } = await createTargetWithDlq(sqs, 'digest.fifo')
    const config = { queues: { 'digest.fifo': target.url }, ...LIMITS }
    const sentMs = Date.now() - 60_000
    await deadLetter(dlq.url, 'fifo-4', { n: 4 }, 'digest.fifo', 'fifo-4', sentMs)
    await deadLetter(dlq.url, 'fifo-5', { n: 5 }, 'digest.fifo', 'fifo-5', sentMs - 3_600_000) // an hour ago
    // act
    const report = await redrive({ sqs, waitSeconds: 0, dlqUrl: dlq.url, config, mode: schedule(t.store, 0) })
    // assess
    expect(report).toMatchObject({ moved: 2, skipped: [] })
    expect(Date.parse((await t.store.get('fifo-4'))!.runAt)).toBeLessThanOrEqual(Date.now())
    expect(Date.parse((await t.store.get('fifo-5'))!.runAt)).toBeLessThanOrEqual(Date.now())
    await t.close()
  })
})

describe('DLQ redrive keeps the creation time', () => {
  /** A message as the scanner sent job `id` created at `createdAtMs`: the body, and its FIFO deduplication id. */
  function sent(id: string, queue: string, createdAtMs: number) {
    const body = messageBody({ id, queue, payloadJson: '{"k":1}', dueMs: createdAtMs, createdAtMs }, createdAtMs)
    return { body, dedup: deduplicationId(id, 0, createdAtMs) }
  }

  it('schedules the job again with the createdAt its message carries', async () => {
    // prepare: a job created an hour ago, in the DLQ
    const t = testStore()
    const { target, dlq } = await createTargetWithDlq(sqs, 'orders')
    const createdAtMs = Date.now() - 3_600_000
    await sqs.send(
      new SendMessageCommand({ QueueUrl: dlq.url, MessageBody: sent('kept-1', 'orders', createdAtMs).body }),
    )
    const config = { queues: { orders: target.url }, ...LIMITS }
    // act
    const report = await redrive({ sqs, waitSeconds: 0, dlqUrl: dlq.url, config, mode: schedule(t.store, 60_000) })
    // assess
    expect(report).toMatchObject({ moved: 1, skipped: [] })
    expect((await t.store.get('kept-1'))?.createdAt).toBe(new Date(createdAtMs).toISOString())
    await t.close()
  })

  it('moves a message once when a run that scheduled it stopped before deleting it, and a later run meets it again', async () => {
    // prepare: a run that schedules the job and stops before its DeleteMessage (its process died); the message is
    // visible again in the DLQ, as after its visibility timeout
    const t = testStore()
    const { target, dlq } = await createTargetWithDlq(sqs, 'orders')
    await sqs.send(new SendMessageCommand({ QueueUrl: dlq.url, MessageBody: sent('twice-1', 'orders', 1_000).body }))
    const config = { queues: { orders: target.url }, ...LIMITS }
    const handles: string[] = []
    const dying = {
      send: (command: unknown) => {
        if (!(command instanceof DeleteMessageCommand)) return sqs.send(command as SendMessageCommand)
        handles.push(command.input.ReceiptHandle!)
        return Promise.resolve({})
      },
    } as unknown as typeof sqs
    await redrive({ sqs: dying, waitSeconds: 0, dlqUrl: dlq.url, config, mode: schedule(t.store, 600_000) })
    const scheduled = await t.store.get('twice-1')
    await sqs.send(
      new ChangeMessageVisibilityCommand({ QueueUrl: dlq.url, ReceiptHandle: handles[0]!, VisibilityTimeout: 0 }),
    )
    // act: the operator runs the redrive again
    const again = await redrive({ sqs, waitSeconds: 0, dlqUrl: dlq.url, config, mode: schedule(t.store, 600_000) })
    // assess: the second run finds its own earlier write (it moved it), deletes the message, and schedules nothing new
    expect(again).toMatchObject({ moved: 1, skipped: [] })
    expect(await approximateCount(sqs, dlq.url)).toBe(0)
    expect(await t.store.get('twice-1')).toEqual(scheduled)
    await t.close()
  })

  it('keeps no creation time later than now (a message body that names one in the future)', async () => {
    // prepare: a message whose createdAt is in 2100
    const t = testStore()
    const { target, dlq } = await createTargetWithDlq(sqs, 'orders')
    const future = Date.parse('2100-01-01T00:00:00Z')
    await sqs.send(new SendMessageCommand({ QueueUrl: dlq.url, MessageBody: sent('future-1', 'orders', future).body }))
    const config = { queues: { orders: target.url }, ...LIMITS }
    // act
    const report = await redrive({ sqs, waitSeconds: 0, dlqUrl: dlq.url, config, mode: schedule(t.store, 60_000) })
    // assess: created at the redrive (Redis's clock), not in the future
    expect(report).toMatchObject({ moved: 1, skipped: [] })
    expect(Date.parse((await t.store.get('future-1'))!.createdAt!)).toBeLessThanOrEqual(Date.now())
    await t.close()
  })

  it('delivers a FIFO job redriven at once with its old createdAt: not a duplicate of its first delivery', async () => {
    // prepare: the scanner's first delivery a minute ago (its deduplication id is in SQS's 5-minute window), received
    // and given up on by the consumer: the message is in the DLQ
    const t = testStore()
    const { target, dlq } = await createTargetWithDlq(sqs, 'digest.fifo')
    const config = { queues: { 'digest.fifo': target.url }, ...LIMITS }
    const first = sent('kept-fifo', 'digest.fifo', Date.now() - 60_000)
    const group = { MessageGroupId: 'kept-fifo' }
    await sqs.send(
      new SendMessageCommand({
        QueueUrl: target.url,
        MessageBody: first.body,
        MessageDeduplicationId: first.dedup,
        ...group,
      }),
    )
    const [delivered] = await receiveAll(sqs, target.url)
    await sqs.send(new DeleteMessageCommand({ QueueUrl: target.url, ReceiptHandle: delivered!.ReceiptHandle! }))
    await sqs.send(
      new SendMessageCommand({ QueueUrl: dlq.url, MessageBody: first.body, MessageDeduplicationId: 'dlq-1', ...group }),
    )
    // act: redriven due now, and dispatched by a scanner
    const report = await redrive({ sqs, waitSeconds: 0, dlqUrl: dlq.url, config, mode: schedule(t.store, 0) })
    const s = testScanner(t, { queues: config.queues })
    await s.runUntil(async () => (await pendingCount(t.store)) === 0, 5_000)
    // assess: it arrived again, with its old creation time
    expect(report).toMatchObject({ moved: 1, skipped: [] })
    const again = await receiveAll(sqs, target.url)
    expect(again.map((m) => JSON.parse(m.Body!).createdAt)).toEqual([JSON.parse(first.body).createdAt])
    await s.close()
    await t.close()
  })
})

describe('which queue a DLQ belongs to', () => {
  it('maps a DLQ URL back to its target queue by the stack naming, FIFO included', () => {
    const queues = {
      orders: 'https://sqs.eu-west-1.amazonaws.com/123456789012/svc-prod-orders',
      'digest.fifo': 'https://sqs.eu-west-1.amazonaws.com/123456789012/svc-prod-digest.fifo',
    }
    expect(dlqNameOf('svc-prod-digest.fifo')).toBe('svc-prod-digest-dlq.fifo')
    expect(targetOfDlq('https://sqs.eu-west-1.amazonaws.com/123456789012/svc-prod-orders-dlq', queues)).toBe('orders')
    expect(targetOfDlq('https://eu-west-1.queue.amazonaws.com/123456789012/svc-prod-digest-dlq.fifo', queues)).toBe(
      'digest.fifo',
    )
    expect(targetOfDlq('https://sqs.eu-west-1.amazonaws.com/999999999999/svc-prod-orders-dlq', queues)).toBeUndefined()
    expect(targetOfDlq('https://sqs.eu-west-1.amazonaws.com/123456789012/svc-prod-orders', queues)).toBeUndefined()
    expect(targetOfDlq('not a url', queues)).toBeUndefined()
  })
})
