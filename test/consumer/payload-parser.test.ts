// parsePayload: a Standard Schema (zod here; valibot and arktype implement the same interface), a type guard, or a
// sync function. What cannot work is refused at compile time (the @ts-expect-error lines fail the typecheck if it
// compiles) or handled at run time; a rejection's reason is bounded and its issues structured.
import type { Logger } from '@aws-lambda-powertools/logger'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { z } from 'zod'
import { jobHandler, type StandardSchemaV1 } from '../../src/consumer'
import { parseJobMessage } from '../../src/consumer/parse-message'
import { capturedLogger, lambdaContext, options } from './fixtures'
import { handRecord, jobBody } from './queues'

afterEach(() => {
  vi.restoreAllMocks()
  vi.unstubAllEnvs()
})

const Order = z.object({ orderId: z.string() })
type Order = z.infer<typeof Order>
const isOrder = (p: unknown): p is Order => typeof (p as Order | null)?.orderId === 'string'
const body = (payload: unknown) => jobBody('order-1', payload)
const ARN = 'arn:aws:sqs:us-east-1:000000000000:orders'

/** Runs one record through jobHandler; returns the failures, the payload the job saw, and the log lines. */
async function runOne(payload: unknown, parsePayload: unknown, logger?: Logger) {
  const seen: unknown[] = []
  const record = { ...handRecord('1', 'order-1', ARN), body: body(payload) }
  const handler = jobHandler(async (job) => void seen.push(job.payload), {
    ...options({ backoff: false, maxReceiveCount: 5 }),
    ...(logger ? { logger } : {}),
    parsePayload: parsePayload as StandardSchemaV1,
  })
  const response = await handler({ Records: [record] }, lambdaContext())
  return { failed: response.batchItemFailures.map((f) => f.itemIdentifier), seen }
}

describe('parsePayload', () => {
  it('takes a zod schema itself (Standard Schema) and gives the job its output', async () => {
    const Trimmed = z.object({ orderId: z.string().trim() })
    expect(await runOne({ orderId: ' 42 ' }, Trimmed)).toEqual({ failed: [], seen: [{ orderId: '42' }] })
    expect(await runOne({ orderId: 42 }, Trimmed)).toMatchObject({ failed: ['m-1'], seen: [] })
  })

  it('awaits a schema that validates asynchronously, and a loosely typed async function', async () => {
    const asyncSchema: StandardSchemaV1<unknown, Order> = {
      '~standard': {
        version: 1,
        vendor: 'test',
        validate: async (value) => (isOrder(value) ? { value } : { issues: [{ message: 'not an order' }] }),
      },
    }
    expect(await runOne({ orderId: 'a' }, asyncSchema)).toEqual({ failed: [], seen: [{ orderId: 'a' }] })
    expect(await runOne({}, asyncSchema)).toMatchObject({ failed: ['m-1'] })
    // parseAsync's rejection is the record's failure, never an unhandled rejection with the record acknowledged
    const unhandled = vi.fn()
    process.on('unhandledRejection', unhandled)
    try {
      expect(await runOne({}, (p: unknown) => Order.parseAsync(p))).toMatchObject({ failed: ['m-1'], seen: [] })
      expect(await runOne({ orderId: 'b' }, (p: unknown) => Order.parseAsync(p))).toEqual({
        failed: [],
        seen: [{ orderId: 'b' }],
      })
      await new Promise((resolve) => setImmediate(resolve))
      expect(unhandled).not.toHaveBeenCalled()
    } finally {
      process.off('unhandledRejection', unhandled)
    }
  })

  it('treats a type guard as a verdict: the payload stays itself when it holds, the record is malformed when not', async () => {
    expect(await runOne({ orderId: 'c' }, isOrder)).toEqual({ failed: [], seen: [{ orderId: 'c' }] })
    expect(await runOne({ orderId: 1 }, isOrder)).toEqual({ failed: ['m-1'], seen: [] })
  })

  it('logs a bounded reason and the first issues, structured, for a payload with 30,000 issues', async () => {
    // prepare
    const { logger, lines } = capturedLogger()
    const payload = { items: Array.from({ length: 30_000 }, () => ({ sku: 1 })) }
    const schema = z.object({ items: z.array(z.object({ sku: z.string() })) })
    // act
    const out = await runOne(payload, schema, logger)
    // assess
    expect(out.failed).toEqual(['m-1'])
    const line = lines.find((l) => l.message === 'malformed message')!
    expect(line.issueCount).toBe(30_000)
    expect(line.issues).toHaveLength(10)
    expect(line.issues[0]).toEqual({ path: 'items.0.sku', message: expect.stringMatching(/expected string/) })
    expect(line.reason).toMatch(/^payload rejected \(30000 issues\): items\.0\.sku: /)
    expect(JSON.stringify(line).length).toBeLessThan(4_000)
  })

  it('bounds the reason of a parser that throws a huge message, and of a zod parse function', async () => {
    const huge = () => {
      throw new Error('x'.repeat(100_000))
    }
    const parsed = await parseJobMessage(body({}), huge)
    expect(!parsed.ok && parsed.reason.length).toBeLessThanOrEqual(500)
    const viaParse = await parseJobMessage(body({ orderId: 1 }), Order.parse)
    expect(viaParse).toMatchObject({ ok: false, issueCount: 1, issues: [{ path: 'orderId' }] })
  })

  it('refuses at compile time what cannot be a payload parser', () => {
    const job = async () => {}
    // a Promise-returning parser: pass the schema itself instead
    // @ts-expect-error parsePayload returns a Promise
    jobHandler(job, { parsePayload: async (p: unknown) => Order.parse(p) })
    // @ts-expect-error parsePayload returns a Promise
    jobHandler(job, { parsePayload: (p: unknown) => Order.parseAsync(p) })
    // @ts-expect-error the payload type says Order, the parser answers a Promise
    jobHandler<Order>(job, { parsePayload: (p: unknown) => Order.parseAsync(p) })
    // a boolean that is not declared as a guard would be taken for the payload
    // @ts-expect-error parsePayload returns a boolean
    jobHandler(job, { parsePayload: (p: unknown): boolean => p !== null })
    // @ts-expect-error a guard for another type than the payload's
    jobHandler<Order>(job, { parsePayload: (p: unknown): p is string => typeof p === 'string' })
    // what compiles: a schema, a guard, a sync parser; the job's payload type follows
    const compiled = [
      jobHandler(async (j) => j.payload.orderId.toUpperCase(), { parsePayload: Order }),
      jobHandler(async (j) => j.payload.orderId.toUpperCase(), { parsePayload: isOrder }),
      jobHandler(async (j) => j.payload.orderId.toUpperCase(), { parsePayload: Order.parse }),
    ]
    // The refusals above are held by `npm run typecheck` (test/ is in tsconfig's include): an @ts-expect-error line
    // that compiles is itself an error. At run time, what compiles is a Lambda handler.
    expect(compiled.map((h) => typeof h)).toEqual(['function', 'function', 'function'])
  })
})
