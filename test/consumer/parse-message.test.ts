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
