// Idempotency when Redis fails or a copy is still running: records fail fast and are retried with backoff, a job
// whose code already ran is not failed (it would run again), and a waiting duplicate does not burn receives.
import { sleep } from '../../devkit/sleep'
import { Redis } from 'ioredis'
import { afterAll, describe, expect, inject, it } from 'vitest'
import { startRedis } from '../../local/redis-server'
import { jobHandler } from '../../src/consumer'
import { capturedLogger, lambdaContext, options, silentServer, unique, useConsumerFixtures } from './fixtures'
import { consumerQueue, jobBody, queueWithDlq, receiveEvent, receiveNow, sendJob, sendRaw } from './queues'

useConsumerFixtures()

describe('idempotency with Redis down', () => {
  /** The two clients docs/consumer.md shows: ioredis defaults (offline queue, 20 retries) and the fail-fast one. */
  const clients = {
    'the docs client': (url: string) => new Redis(url),
    'the docs fail-fast client': (url: string) =>
      new Redis(url, {
        enableOfflineQueue: false,
        maxRetriesPerRequest: 1,
        connectTimeout: 1_000,
        commandTimeout: 1_000,
      }),
  }

  it.each([
    ['the docs client', 'a redis-server that was stopped', 'stopped'],
    ['the docs client', 'a Redis that accepts connections and never answers', 'silent'],
    ['the docs fail-fast client', 'a redis-server that was stopped', 'stopped'],
    ['the docs fail-fast client', 'a Redis that accepts connections and never answers', 'silent'],
  ] as const)(
    'fails the job without running it, fast, and retries it with backoff: %s, %s',
    async (client, _, kind) => {
      // prepare
      const stopped = kind === 'stopped' ? await startRedis() : undefined
      const silent = kind === 'silent' ? await silentServer() : undefined
      const url = stopped?.url ?? `redis://127.0.0.1:${silent!.port}`
      const redis = clients[client](url)
      redis.on('error', () => {}) // ioredis reports each reconnection failure; the test only cares about the job
      await stopped?.stop()
      const queue = await consumerQueue(unique('idem-down'))
      await sendJob(queue.url, unique('job'), {})
      const { logger, lines } = capturedLogger()
      let runs = 0
      const handler = jobHandler(
        async () => void runs++,
        options({ logger, maxReceiveCount: 5, backoff: { baseSeconds: 4, jitter: false }, idempotency: { redis } }),
      )
      const event = await receiveEvent(queue.url, queue.arn, 1)
      try {
        // act
        const t0 = performance.now()
        const response = await handler(event, lambdaContext(30_000))
        const elapsedMs = performance.now() - t0
        // assess: failed without running, well before the deadline (ioredis alone waits ~10 s or forever)
        expect(response.batchItemFailures).toHaveLength(1)
        expect(runs).toBe(0)
        expect(elapsedMs).toBeLessThan(5_000)
        console.info(`Redis ${kind}, ${client}: the record failed after ${Math.round(elapsedMs)} ms`)
        expect(lines.find((l) => l.message === 'job failed')).toMatchObject({ retryInSeconds: 4 })
        await sleep(2_000)
        expect(await receiveNow(queue.url)).toEqual([]) // hidden for its backoff, not the queue's 1 s
      } finally {
        redis.disconnect()
        await silent?.close()
      }
    },
  )

  it('does not fail a job whose code ran when only its success record could not be written', async () => {
    // prepare: a private redis-server that dies while the job runs
    const server = await startRedis()
    const redis = new Redis(server.url)
    redis.on('error', () => {})
    const queue = await consumerQueue(unique('idem-after'))
    await sendJob(queue.url, unique('job'), {})
    const { logger, lines } = capturedLogger()
    let runs = 0
    const handler = jobHandler(
      async () => {
        runs++
        await server.stop() // the side effects are done; Redis goes down before the toolkit records success
      },
      options({ logger, maxReceiveCount: 5, idempotency: { redis } }),
    )
    const event = await receiveEvent(queue.url, queue.arn, 1)
    try {
      // act
      const response = await handler(event, lambdaContext())
      // assess: acknowledged (a failure would make SQS run it again), and said
      expect(response.batchItemFailures).toEqual([])
      expect(runs).toBe(1)
      expect(lines.map((l) => l.message)).toContain(
        'job done, but its idempotency record could not be saved: a later duplicate may run it again',
      )
    } finally {
      redis.disconnect()
      await server.stop()
    }
  })
})

describe('idempotency with a copy still running', () => {
  const redis = new Redis(inject('redisUrl'))
  afterAll(() => redis.quit())

  it('makes a duplicate wait for the running copy instead of failing towards the DLQ', async () => {
    // prepare: maxReceiveCount 2, a 3 s job, two copies of it in one batch (an SQS duplicate, a re-send)
    const queue = await queueWithDlq(unique('idem-wait'), 2)
    const id = unique('job')
    const due = Date.now() - 10
    await sendRaw(queue.url, jobBody(id, {}, due), id)
    await sendRaw(queue.url, jobBody(id, {}, due), id)
    let runs = 0
    const { logger, lines } = capturedLogger()
    const handler = jobHandler(
      async () => {
        runs++
        await sleep(3_000)
      },
      options({ logger, idempotency: { redis, keyPrefix: unique('idem') } }),
    )
    const event = await receiveEvent(queue.url, queue.arn, 2)
    // act
    const response = await handler(event, lambdaContext())
    // assess: both acknowledged, the code ran once, nothing burnt a receive
    expect(response.batchItemFailures).toEqual([])
    expect(runs).toBe(1)
    expect(lines.filter((l) => l.message === 'job done')).toHaveLength(1)
    expect(lines.filter((l) => l.message.startsWith('duplicate delivery: job already done'))).toHaveLength(1)
    expect(await receiveNow(queue.dlq.url)).toEqual([])
  })

  it('skips a duplicate of a job whose result JSON cannot carry (nothing of the result is stored)', async () => {
    // prepare
    const queue = await consumerQueue(unique('idem-bigint'))
    const id = unique('job')
    await sendJob(queue.url, id, {})
    let runs = 0
    const handler = jobHandler(
      async () => {
        runs++
        return 10n
      },
      options({ maxReceiveCount: 5, idempotency: { redis, keyPrefix: unique('idem') } }),
    )
    const first = await receiveEvent(queue.url, queue.arn, 1)
    // act: the job, then the same message again (as SQS redelivers it), each in its own 5 s invocation
    const answers = [await handler(first, lambdaContext(5_000)), await handler(first, lambdaContext(5_000))]
    // assess
    expect(answers.map((a) => a.batchItemFailures)).toEqual([[], []])
    expect(runs).toBe(1)
  })
})
