// The scan function's entry point (functions/scan.ts) meets a burst: its run starts scan workers through the Lambda
// API (here a loopback stand-in that, like Lambda's asynchronous invoke, answers 202 and runs the same handler with
// the event in this process), on the real Redis and fauxqs. Workers run the worker path, not the minute's run.
import { createServer, type IncomingMessage } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { Context } from 'aws-lambda'
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest'
import { localContext } from '../../tools/sdq-poll/handler-loader'
import type { ScanWorkerEvent } from '../../src/scan/run/fan-out'
import { job, testStore, uniquePrefix } from '../support/engine'
import { countIds, createQueue, receiveAll, sqsClient } from '../support/sqs'

const JOBS = 8_000
const FUNCTION = 'sdq-test-scan'
const sqs = sqsClient()

type Report = { dispatched: number; handedOverTo?: string | null; drained?: boolean }
let scan: (e: unknown, c: Context) => Promise<Report>
const invoked: ScanWorkerEvent[] = []
const workerRuns: Promise<Report>[] = []
const lambda = createServer(async (req: IncomingMessage, res) => {
  let body = ''
  for await (const chunk of req) body += chunk
  if (req.headers['x-amz-invocation-type'] !== 'Event') {
    res.writeHead(400).end() // the invoker's DryRun warm-up
    return
  }
  res.writeHead(202).end()
  const event = JSON.parse(body) as ScanWorkerEvent
  invoked.push(event)
  workerRuns.push(scan(event, localContext(FUNCTION, 30_000)))
})
const prefix = uniquePrefix('fanout-fn')
let queueUrl = ''

beforeAll(async () => {
  queueUrl = (await createQueue(sqs, 'fanout-fn')).url
  await new Promise<void>((r) => lambda.listen(0, '127.0.0.1', r))
  vi.stubEnv('AWS_ACCESS_KEY_ID', 'local')
  vi.stubEnv('AWS_SECRET_ACCESS_KEY', 'local')
  // The entry point reads its configuration at module scope, like a Lambda cold start.
  Object.assign(process.env, {
    REDIS_URL: inject('redisUrl'),
    KEY_PREFIX: prefix,
    QUEUES: `orders=${queueUrl}`,
    SQS_ENDPOINT: inject('sqsEndpoint'),
    LAMBDA_ENDPOINT: `http://127.0.0.1:${(lambda.address() as AddressInfo).port}`,
    // Continuous, as this test has always run it: unset, SCAN_MODE would follow SCAN_FUNCTION_NAME to on-demand.
    SCAN_MODE: 'continuous',
    SCAN_FUNCTION_NAME: FUNCTION,
    SCAN_MAX_WORKERS: '2',
    SAFETY_MARGIN_MS: '1000',
    LEASE_MS: '10000',
    DUE_BUCKETS: '64',
  })
  for (const stream of [process.stdout, process.stderr]) vi.spyOn(stream, 'write').mockImplementation(() => true)
  scan = (await import('../../functions/scan')).handler as never
})
afterAll(async () => {
  vi.restoreAllMocks()
  vi.unstubAllEnvs()
  lambda.close()
  sqs.destroy()
})

describe('the scan function fans out for a burst', () => {
  it('a run over 8,000 due jobs starts a worker (its claims came back full for 5,000 jobs) with the worker event and its deadline; each job is sent once', async () => {
    // prepare
    const t = testStore({ prefix, buckets: 64 })
    for (let i = 0; i < JOBS; i += 500) {
      await t.store.enqueueMany(Array.from({ length: 500 }, (_, k) => job({ id: `b-${i + k}` })))
    }
    const startedAt = Date.now()
    // act: a tick's run with 12 s to go (11 s of loop)
    const report = await scan({ source: 'aws.events' }, localContext(FUNCTION, 12_000))
    const workers = await Promise.all(workerRuns)
    // assess: one worker (a second needs 10,000 jobs claimed by the run itself), started as a worker, bounded by the
    // run's deadline, ended when drained; the run was not stopped by it (no hand-over); every job in SQS once
    expect(invoked.map((e) => [e.source, e.worker])).toEqual([['sdq.scan-worker', 1]])
    for (const e of invoked) expect(e.deadline).toBeLessThanOrEqual(startedAt + 11_000 + 50)
    expect(workers.map((w) => w.drained)).toEqual([true])
    expect(report.handedOverTo).toBeNull()
    const byWorkers = workers.reduce((n, w) => n + w.dispatched, 0)
    expect(byWorkers).toBeGreaterThan(0)
    expect(report.dispatched + byWorkers).toBe(JOBS)
    const counts = countIds(await receiveAll(sqs, queueUrl))
    expect(counts.size).toBe(JOBS)
    expect([...counts.values()].filter((n) => n > 1)).toEqual([])
    await t.close()
  }, 60_000)
})
