// Security scenarios for the Redis connection (docs/security.md): the engine works against a redis-server that
// requires a password (requirepass) and as an ACL user limited to its key prefix and to the commands the queue
// runs; a wrong password answers 503 without the password in any log line.
import { sleep } from '../../devkit/sleep'
import type { Redis } from 'ioredis'
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import { startRedis, type LocalRedis } from '../../local/redis-server'
import { loadConfig, type Config } from '../../src/config'
import { createEngine, type Engine } from '../../src/store/engine'
import { createApiHandler } from '../../src/api/handler'
import type { ApiResponse } from '../../src/api/response'
import { createScanner } from '../../src/scan/create-scanner'
import { createSqsClient } from '../../src/sqs/sqs-client'
import { countIds, createQueue, receiveAll, sqsClient } from '../support/sqs'
import { apiEvent, lambdaContext } from '../support/lambda'

const PASSWORD = 'pw-Redis-Secret-7f3a'
const ACL_USER = 'sdq-app'
const ACL_PASSWORD = 'acl-Secret-91b2'
/** The ACL docs/security.md recommends: its own keys and channels, data and script commands, nothing dangerous. */
const ACL_RULES = [
  'on',
  `>${ACL_PASSWORD}`,
  'resetkeys',
  '~sdqacl{*',
  'resetchannels',
  '&sdqacl{*',
  '-@all',
  '+@read',
  '+@write',
  '+@scripting',
  '+@pubsub',
  '+@connection',
  '-@dangerous',
  '+info',
  '+time',
]

let server: LocalRedis
const sqs = sqsClient()
beforeAll(async () => {
  server = await startRedis({ extraArgs: ['--requirepass', PASSWORD, '--user', ACL_USER, ...ACL_RULES] })
})
afterAll(async () => {
  sqs.destroy()
  await server?.stop()
})

/** A logger that keeps each line as JSON text. */
function recorder(lines: string[]) {
  const push = (m: string, ...extra: Record<string, unknown>[]) =>
    void lines.push(JSON.stringify({ m, ...Object.assign({}, ...extra) }))
  return { info: push, warn: push, error: push }
}

function stack(url: string, prefix: string, queueUrl: string) {
  const lines: string[] = []
  const config: Config = loadConfig({
    REDIS_URL: url,
    QUEUES: JSON.stringify({ orders: queueUrl }),
    KEY_PREFIX: prefix,
    SQS_ENDPOINT: inject('sqsEndpoint'),
    POLL_INTERVAL_MS: '50',
  })
  const engine: Engine = createEngine(config, {
    commandTimeoutMs: 1_000,
    maxRetriesPerRequest: 1,
    logger: recorder(lines),
  })
  const handler = createApiHandler(engine, {
    logger: recorder(lines),
  })
  const call = (e: ReturnType<typeof apiEvent>) =>
    handler(e, lambdaContext({ budgetMs: 10_000 })) as Promise<ApiResponse>
  return { config, engine, call, lines }
}

/** Enqueue through the API, dispatch with a scanner, and read the queue back. */
async function roundTrip(url: string, prefix: string) {
  const q = await createQueue(sqs, 'auth')
  const s = stack(url, prefix, q.url)
  const created = await s.call(
    apiEvent('POST', '/jobs', { queue: 'orders', payload: { secret: 'payload-marker-5521' }, id: 'auth-1' }),
  )
  const sqsOut = createSqsClient(s.config)
  const { scanner, close } = createScanner(s.engine, sqsOut, { logger: recorder(s.lines) })
  const run = scanner.run(Date.now() + 5_000)
  // Until it was sent: get() answers a sent job too (status "dispatched", from its receipt), not null.
  const pending = async () => ((await s.engine.store.get('auth-1'))?.status ?? 'dispatched') !== 'dispatched'
  for (let i = 0; i < 100 && (await pending()); i++) await sleep(50)
  scanner.stop()
  await run
  await close()
  sqsOut.destroy()
  const received = [...countIds(await receiveAll(sqs, q.url, 1)).keys()]
  return { ...s, created, received }
}

describe('Redis AUTH', () => {
  it('schedules and dispatches with the password of a requirepass server', async () => {
    const r = await roundTrip(`redis://:${PASSWORD}@127.0.0.1:${server.port}`, 'sdqpw')
    expect(r.created.statusCode).toBe(201)
    expect(r.received).toEqual(['auth-1'])
    await r.engine.close()
  })

  it('works as an ACL user limited to its own key prefix, which cannot touch other keys or run admin commands', async () => {
    // act
    const r = await roundTrip(`redis://${ACL_USER}:${ACL_PASSWORD}@127.0.0.1:${server.port}`, 'sdqacl')
    // assess: the whole path works with least privilege ...
    expect(r.created.statusCode).toBe(201)
    expect(r.received).toEqual(['auth-1'])
    // ... and the user is fenced in
    const redis = r.engine.redis as Redis
    await expect(redis.get('other-app:key')).rejects.toThrow(/NOPERM/)
    await expect(redis.flushall()).rejects.toThrow(/NOPERM/)
    await expect(redis.config('GET', 'requirepass')).rejects.toThrow(/NOPERM/)
    await r.engine.close()
  })

  it('answers 503 for a wrong password (retry during a rotation), logs WRONGPASS, and no log line carries a password or a payload', async () => {
    // prepare
    const q = await createQueue(sqs, 'wrongpw')
    const wrong = 'wrong-Password-c0ffee'
    const s = stack(`redis://${ACL_USER}:${wrong}@127.0.0.1:${server.port}`, 'sdqacl', q.url)
    // act
    const r = await s.call(apiEvent('POST', '/jobs', { queue: 'orders', payload: { secret: 'payload-marker-5521' } }))
    // assess
    // Not the caller's fault, and passes once the password is right again (rotation): retryable, cause logged.
    expect(r.statusCode).toBe(503)
    expect(JSON.parse(r.body!).error.code).toBe('ServiceUnavailable')
    expect(s.lines.join('\n')).toMatch(/WRONGPASS/)
    for (const secret of [wrong, PASSWORD, ACL_PASSWORD, 'payload-marker-5521'])
      expect(s.lines.join('\n')).not.toContain(secret)
    await s.engine.close()
  })
})
