// The api-client under the grant docs/api-client.md recommends for a caller that only schedules (POST /jobs and
// POST /jobs/batch): every GET is answered 403, as API Gateway answers a route the role may not invoke. Its retries
// must still never duplicate a job nor give one up: they rest on the call's Idempotency-Key, which the API recognises
// itself, and never on a look-up.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createApiHandler } from '../../src/api/handler'
import { DelayQueueApiClient } from '../../src/api-client'
import type { Log } from '../../src/logger'
import { createEngine, type Engine } from '../../src/store/engine'
import { testConfig } from '../api/api-helpers'
import { serveApi, type ApiServer } from '../support/api-server'
import { testScanner } from '../support/scanner'
import { countIds, createQueue, receiveAll, sqsClient as sqsClientFor } from '../support/sqs'
import { afterFirst, answerFault } from './answer-faults'

type Fetch = typeof globalThis.fetch
const quiet: Log = { info: () => {}, warn: () => {}, error: () => {} }
const credentials = { accessKeyId: 'AKIDLOCALTEST', secretAccessKey: 'local-secret' }

let engine: Engine
let api: ApiServer
beforeAll(async () => {
  engine = createEngine(testConfig())
  api = await serveApi(createApiHandler(engine, { logger: quiet }))
})
afterAll(async () => {
  await api?.close()
  await engine?.close()
})

/** `inner` behind the create-only grant: a GET never reaches the API and is answered 403; `reads` counts them. */
function createOnly(inner: Fetch) {
  const grant = { reads: 0 }
  const fetch: Fetch = async (url, init) => {
    if ((init?.method ?? 'GET') !== 'GET') return inner(url, init)
    grant.reads++
    return new Response(JSON.stringify({ message: 'Forbidden' }), { status: 403 })
  }
  return { fetch, grant }
}

const client = (fetch: Fetch) =>
  new DelayQueueApiClient({
    url: api.url,
    region: 'eu-west-1',
    credentials,
    retry: { attempts: 4, baseDelayMs: 10, maxDelayMs: 20 },
    fetch,
  })

describe('DelayQueueApiClient with the create-only grant (every GET answered 403)', () => {
  it('sends a schedule() without an id whose answer was lost again, and its job reaches SQS once', async () => {
    // prepare: a scanner that keeps receipts a day; the first POST is applied, its job handed to SQS, and its answer
    // lost on the way back
    const sqs = sqsClientFor()
    const q = await createQueue(sqs, 'create-only-lost')
    const scanner = testScanner(engine, { queues: { emails: q.url }, receiptTtlMs: 86_400_000, ackHoldMs: 0 })
    const pending = async () => (await engine.store.stats()).queues.emails?.pending ?? 0
    const drain = () => scanner.runUntil(async () => (await pending()) === 0, 10_000)
    const { fetch, grant } = createOnly(answerFault('POST', 'dropped', drain).fetch)
    try {
      // act
      const job = await client(fetch).schedule({ queue: 'emails', payload: { to: 'a@example.com' } })
      await drain()
      // assess: answered from the receipt its own key left; no read was needed, and one copy is in SQS
      expect(job).toMatchObject({ queue: 'emails', status: 'scheduled' })
      expect(countIds(await receiveAll(sqs, q.url)).get(job.id)).toBe(1)
      expect(await pending()).toBe(0)
      expect(grant.reads).toBe(0)
    } finally {
      await scanner.close()
      sqs.destroy()
    }
  })

  it('sends a batch refused with a passing 503 again, and answers every job scheduled, each stored once', async () => {
    // prepare: the first request stores the jobs, and the answer the client sees is a 503
    const { fetch, grant } = createOnly(afterFirst('POST', '503'))
    const tag = Date.now()
    const jobs = [1, 2, 3].map((n) => ({ queue: 'orders', payload: { n, tag }, delayMs: 60_000 }))
    const before = (await engine.store.stats()).queues.orders?.pending ?? 0
    // act
    const results = await client(fetch).scheduleMany(jobs)
    // assess
    expect(results.map((r) => ('status' in r ? r.status : r.error.message))).toEqual([
      'scheduled',
      'scheduled',
      'scheduled',
    ])
    expect((await engine.store.stats()).queues.orders?.pending).toBe(before + 3)
    expect(grant.reads).toBe(0)
    for (const [i, r] of results.entries()) {
      expect(await engine.store.get(r.id!)).toMatchObject({ payload: { n: i + 1, tag } })
    }
  })
})
