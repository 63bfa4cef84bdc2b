// Test helpers for the HTTP API: API Gateway (payload v2) events, a real engine on the test Redis with a key
// prefix of its own, and a snapshot of everything that prefix holds in Redis.
import type { APIGatewayProxyEventV2, Context } from 'aws-lambda'
import { afterAll, beforeAll, inject } from 'vitest'
import { loadConfig, type Config } from '../../src/config'
import { createEngine, type Engine } from '../../src/store/engine'
import { createApiHandler } from '../../src/api/handler'
import type { Log } from '../../src/logger'
import type { ApiResponse } from '../../src/api/response'
import { serveApi, type ApiServer } from '../support/api-server'
import { expectDocumented } from './openapi-answers'
import { uniquePrefix } from '../support/engine'
import { apiEvent, lambdaContext, type EventOptions } from '../support/lambda'

export const QUEUES = {
  orders: 'http://127.0.0.1:9/000000000000/orders',
  emails: 'http://127.0.0.1:9/000000000000/emails',
  'events.fifo': 'http://127.0.0.1:9/000000000000/events.fifo',
}

export function testConfig(env: Record<string, string> = {}): Config {
  return loadConfig({
    REDIS_URL: inject('redisUrl'),
    QUEUES: JSON.stringify(QUEUES),
    KEY_PREFIX: uniquePrefix('api'),
    SHARDS: '2',
    DUE_BUCKETS: '8',
    ...env,
  })
}

export interface LoggedLine {
  level: 'error' | 'warn'
  message: string
  data?: Record<string, unknown>
}

/** The handler under test around a real engine; `logs` collects what it logged. */
export function testApi(env: Record<string, string> = {}, engine: Engine = createEngine(testConfig(env))) {
  const logs: LoggedLine[] = []
  const logger: Log = {
    info: () => undefined,
    error: (message, data) => logs.push({ level: 'error', message, data }),
    warn: (message, data) => logs.push({ level: 'warn', message, data }),
  }
  const handler = createApiHandler(engine, { logger })
  return {
    engine,
    logs,
    // Every answer is checked against docs/openapi.yaml: a test fails when an answer is not documented.
    call: async (event: APIGatewayProxyEventV2) =>
      expectDocumented(
        event,
        (await handler(event, lambdaContext({ name: 'sdq-test-api', requestId: 'test-request-id' }))) as ApiResponse,
      ),
    close: () => engine.close(),
  }
}

/**
 * The real API handler on an engine of its own, served over HTTP on loopback for one file's tests: started before
 * them, closed after them (also when one fails). Read `engine` and `api` inside tests and hooks, not at import time.
 */
export function servedApi(env: Record<string, string> = {}): { readonly engine: Engine; readonly api: ApiServer } {
  const served = {} as { engine: Engine; api: ApiServer }
  const quiet: Log = { info: () => {}, warn: () => {}, error: () => {} }
  beforeAll(async () => {
    served.engine = createEngine(testConfig(env))
    const handler = createApiHandler(served.engine, { logger: quiet })
    // As testApi: an answer docs/openapi.yaml does not describe fails the request (a 500 from the test server).
    served.api = await serveApi(async (event: APIGatewayProxyEventV2, context: Context) =>
      expectDocumented(event, (await handler(event, context)) as ApiResponse),
    )
  })
  afterAll(async () => {
    await served.api?.close()
    await served.engine?.close()
  })
  return served
}

export interface RequestOptions extends EventOptions {
  body?: unknown
}

/** An HTTP API payload v2 event as API Gateway sends it for `method path`. */
export function request(method: string, path: string, options: RequestOptions = {}): APIGatewayProxyEventV2 {
  return apiEvent(method, path, options.body, options)
}

export { lambdaContext }

export function bodyOf(response: ApiResponse): any {
  return response.body === undefined ? undefined : JSON.parse(response.body)
}

/** Every key under the engine's prefix with its full content (DUMP), to prove a request changed nothing. */
export async function redisSnapshot(engine: Engine): Promise<Map<string, string>> {
  const redis = engine.redis as import('ioredis').Redis
  const keys: string[] = []
  let cursor = '0'
  do {
    const [next, batch] = await redis.scan(cursor, 'MATCH', `${engine.config.keyPrefix}*`, 'COUNT', 1000)
    cursor = next
    keys.push(...batch)
  } while (cursor !== '0')
  const snapshot = new Map<string, string>()
  for (const key of keys.sort()) snapshot.set(key, ((await redis.dumpBuffer(key)) ?? Buffer.alloc(0)).toString('hex'))
  return snapshot
}
