// The consumers' contract (docs/consumer.md, "The message"): what parses, and why what does not.
import { describe, expect, it } from 'vitest'
import { parseJobMessage } from '../../src/consumer/parse-message'
import { messageBody } from '../../src/sqs/envelope'
import { isFifoArn, parseQueueArn, queueUrlFromArn } from '../../src/consumer/queue-arn'

const body = messageBody(
  {
    id: 'order-42:close',
    queue: 'orders',
    payloadJson: '{"orderId":42}',
    dueMs: 1_800_000_000_000,
    createdAtMs: 1_799_999_000_000,
  },
  1_800_000_000_250,
)

describe('parseJobMessage', () => {
  it('reads the body the scanner sends', async () => {
    expect(await parseJobMessage(body)).toEqual({
      ok: true,
      message: {
        id: 'order-42:close',
        queue: 'orders',
        payload: { orderId: 42 },
        runAt: '2027-01-15T08:00:00.000Z',
        createdAt: '2027-01-15T07:43:20.000Z',
        dispatchedAt: '2027-01-15T08:00:00.250Z',
      },
    })
  })

  it('reads scheduleId and occurrenceAt from the message of a schedule occurrence', async () => {
    const occurrence = messageBody(
      {
        id: 'digest@1800000000000',
        queue: 'emails',
        payloadJson: '{}',
        dueMs: 1_800_000_000_000,
        createdAtMs: 1_799_999_000_000,
      },
      1_800_000_000_250,
    )
    const parsed = await parseJobMessage(occurrence)
    expect(parsed.ok && parsed.message).toMatchObject({
      id: 'digest@1800000000000',
      scheduleId: 'digest',
      occurrenceAt: '2027-01-15T08:00:00.000Z',
    })
    expect(await parseJobMessage(occurrence.replace('"scheduleId":"digest"', '"scheduleId":""'))).toEqual({
      ok: false,
      reason: 'scheduleId must be a string of 1-256 characters',
    })
  })

  it('reads the tags and the flow key from the message of a job that has them', async () => {
    const labelled = messageBody(
      {
        id: 'order-42:remind',
        queue: 'orders',
        payloadJson: '{}',
        dueMs: 1_800_000_000_000,
        createdAtMs: 1_799_999_000_000,
        tags: ['order:42', 'user=7'],
        flowKey: 'mail-provider',
      },
      1_800_000_000_250,
    )
    const parsed = await parseJobMessage(labelled)
    expect(parsed.ok && parsed.message).toMatchObject({ tags: ['order:42', 'user=7'], flowKey: 'mail-provider' })
    // a job without them: neither field in the body, nor in the message read from it
    const plain = await parseJobMessage(body)
    expect(plain.ok && Object.keys(plain.message)).not.toContain('tags')
    expect(plain.ok && Object.keys(plain.message)).not.toContain('flowKey')
    expect(body).not.toMatch(/tags|flowKey/)
  })

  it.each([
    ['tags that are not an array', '"tags":"order:42"', 'tags must be an array of strings of 1-256 characters'],
    ['a tag that is not a string', '"tags":["a",7]', 'tags must be an array of strings of 1-256 characters'],
    ['an empty tag', '"tags":[""]', 'tags must be an array of strings of 1-256 characters'],
    ['a flow key that is not a string', '"flowKey":42', 'flowKey must be a string of 1-256 characters'],
    ['an empty flow key', '"flowKey":""', 'flowKey must be a string of 1-256 characters'],
  ])('refuses %s, naming the field', async (_case, field, reason) => {
    expect(await parseJobMessage(body.replace('{', `{${field},`))).toEqual({ ok: false, reason })
  })

  it.each([
    ['not json', 'body is not JSON'],
    ['[1]', 'body is not an object'],
    [body.replace('"id":"order-42:close"', '"id":42'), 'id must be a string of 1-256 characters'],
    [body.replace('"queue":"orders"', '"queue":""'), 'queue must be a string of 1-256 characters'],
    [body.replace('"payload":{"orderId":42},', ''), 'payload is missing'],
    [body.replace(/"runAt":"[^"]+"/, '"runAt":"soon"'), 'runAt must be an ISO-8601 date-time with a zone'],
  ])('rejects %s with a reason naming the field', async (text, reason) => {
    expect(await parseJobMessage(text)).toEqual({ ok: false, reason })
  })

  it.each([
    [
      'a future envelope version',
      body.replace('{', '{"v":2,'),
      /envelope version 2 is newer than this consumer reads \(1\): upgrade/,
    ],
    ['a version that is not 1', body.replace('{', '{"v":"1",'), /^v must be 1/],
    ['an unknown field', body.replace('{', '{"priority":"high",'), /^unknown field "priority"/],
    ['a runAt of "1"', body.replace(/"runAt":"[^"]+"/, '"runAt":"1"'), /^runAt must be an ISO-8601 date-time/],
    ['a runAt of "March 7"', body.replace(/"runAt":"[^"]+"/, '"runAt":"March 7"'), /^runAt must be/],
    [
      'a day that does not exist',
      body.replace(/"createdAt":"[^"]+"/, '"createdAt":"2027-02-30T00:00:00Z"'),
      /^createdAt must be/,
    ],
    [
      'a time without a zone',
      body.replace(/"dispatchedAt":"[^"]+"/, '"dispatchedAt":"2027-01-15T08:00:00"'),
      /^dispatchedAt must be/,
    ],
    [
      'an id of 300 characters',
      body.replace('"id":"order-42:close"', `"id":"${'x'.repeat(300)}"`),
      /^id must be a string of 1-256/,
    ],
  ])('refuses %s, naming the rule', async (_case, text, reason) => {
    const out = await parseJobMessage(text)
    expect(out.ok).toBe(false)
    expect(!out.ok && out.reason).toMatch(reason)
  })

  it('reads version 1 said explicitly, other zones and fractions, and a null payload (the API accepts null)', async () => {
    const explicit = body.replace('{', '{"v":1,').replace('"2027-01-15T08:00:00.000Z"', '"2027-01-15T09:00:00+01:00"')
    const out = await parseJobMessage(explicit.replace('"payload":{"orderId":42}', '"payload":null'))
    expect(out).toMatchObject({ ok: true, message: { payload: null, runAt: '2027-01-15T09:00:00+01:00' } })
    expect(out.ok && 'v' in out.message).toBe(false)
  })

  it('lets the consumer validate the payload, without echoing its values', async () => {
    const orderOnly = (p: unknown) => {
      if (typeof (p as { orderId?: unknown }).orderId !== 'string') throw new Error('orderId must be a string')
      return p as { orderId: string }
    }
    const out = await parseJobMessage(body, orderOnly)
    expect(out).toEqual({ ok: false, reason: 'payload rejected: orderId must be a string' })
  })
})

describe('queue ARN', () => {
  it('gives the region, the queue URL and whether the queue is FIFO', () => {
    const arn = 'arn:aws:sqs:eu-west-3:123456789012:orders.fifo'
    expect(parseQueueArn(arn)).toEqual({ region: 'eu-west-3', account: '123456789012', name: 'orders.fifo' })
    expect(queueUrlFromArn(arn)).toBe('https://sqs.eu-west-3.amazonaws.com/123456789012/orders.fifo')
    expect(isFifoArn(arn)).toBe(true)
    expect(isFifoArn('arn:aws:sqs:eu-west-3:123456789012:orders')).toBe(false)
    expect(() => parseQueueArn('arn:aws:sns:eu-west-3:1:topic')).toThrow(/not an SQS queue ARN/)
  })
})
