// Seed: a webhook retried up to 10 times at n*2+1 "minutes", then marked failed. One "minute" is 15 ms here.
import { createServer, type Server } from 'node:http'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { MAX_ATTEMPTS, notify, retryDelayMs } from '../../examples/webhook-retry/app'
import { Deliveries } from '../../examples/webhook-retry/deliveries'
import { deliverWebhookHandler } from '../../examples/webhook-retry/handler'
import { eventually, silentLogger, startPipeline } from '../support/pipeline'

const MINUTE = 15
const deliveries = new Deliveries()
/** Answers 500 to the first `failures[path]` requests of each path, then 204. */
const failures: Record<string, number> = { '/flaky': 3, '/down': Infinity }
const hits: Record<string, number> = {}
let server: Server
let base: string
let pipeline: Awaited<ReturnType<typeof startPipeline>>

beforeAll(async () => {
  server = createServer((req, res) => {
    req.resume()
    const n = (hits[req.url!] ?? 0) + 1
    hits[req.url!] = n
    res.writeHead(n <= (failures[req.url!] ?? 0) ? 500 : 204).end()
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  base = `http://127.0.0.1:${(server.address() as { port: number }).port}`
  pipeline = await startPipeline('webhooks', (sqs, queue) =>
    deliverWebhookHandler({ queue, deliveries, minuteMs: MINUTE }, { sqs, logger: silentLogger() }),
  )
})
afterAll(async () => {
  await pipeline.stop()
  server.close()
})

describe('example: webhook retries', () => {
  it('retries a flaky endpoint at n*2+1 minute intervals until it answers', async () => {
    // act
    await notify(pipeline.queue, deliveries, 'flaky-1', `${base}/flaky`, { event: 'order.paid' })
    await eventually(() => deliveries.get('flaky-1')!.state !== 'pending')
    // assess
    const d = deliveries.get('flaky-1')!
    expect(d.state).toBe('delivered')
    expect(d.attempts.map((a) => a.status)).toEqual([500, 500, 500, 204])
    d.attempts.slice(1).forEach((a, i) => {
      expect(a.at - d.attempts[i]!.at).toBeGreaterThanOrEqual(retryDelayMs(i + 1, MINUTE))
    })
  })

  it('gives up after 10 attempts and marks the delivery failed', async () => {
    await notify(pipeline.queue, deliveries, 'down-1', `${base}/down`, { event: 'order.paid' })
    await eventually(() => deliveries.get('down-1')!.state !== 'pending', 20_000)
    const d = deliveries.get('down-1')!
    expect(d.state).toBe('failed')
    expect(d.attempts).toHaveLength(MAX_ATTEMPTS)
    expect(hits['/down']).toBe(MAX_ATTEMPTS)
    // nothing else is scheduled for it
    expect((await pipeline.store.stats()).queues.webhooks!.pending).toBe(0)
  })
})
