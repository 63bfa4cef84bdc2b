// Property: no bad request, however malformed or hostile, gets a 5xx, is accepted, or writes to Redis; each answer
// is the documented error body (docs/api.md). The real API handler (src/api/) runs in-process on API Gateway v2 events against a
// redis-server of this file's own, so Redis's own write counter (rdb_changes_since_last_save) proves "no write".
import fc from 'fast-check'
import type { Redis } from 'ioredis'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startRedis, type LocalRedis } from '../../local/redis-server'
import { loadConfig } from '../../src/config'
import { createEngine, type Engine } from '../../src/store/engine'
import { createApiHandler } from '../../src/api/handler'
import type { ApiResponse } from '../../src/api/response'
import { apiEvent, lambdaContext } from '../support/lambda'
import { recordFigures } from '../faults/results'
import { pick } from '../faults/scale'
import { badRequest, QUEUES } from './arbitraries'

const RUNS = pick(400, 10_000)
const STATUS_OF: Record<string, number> = {
  ValidationError: 400,
  NotFound: 404,
  Conflict: 409,
  PayloadTooLarge: 413,
  UnsupportedMediaType: 415,
}

let redisServer: LocalRedis
let engine: Engine
let handler: ReturnType<typeof createApiHandler>
const errorsLogged: unknown[] = []

beforeAll(async () => {
  redisServer = await startRedis()
  engine = createEngine(
    loadConfig({
      REDIS_URL: redisServer.url,
      QUEUES: JSON.stringify(QUEUES),
      KEY_PREFIX: 'fuzz',
      SHARDS: '2',
      DUE_BUCKETS: '8',
    }),
  )
  handler = createApiHandler(engine, {
    logger: {
      error: (message, data) => void errorsLogged.push({ message, data }),
      warn: () => undefined,
      info: () => undefined,
    },
  })
  // One job that exists, so PUT on it with a bad body is part of the search.
  await engine.store.enqueue({
    id: 'fuzz-existing',
    queue: 'orders',
    payloadJson: '{"keep":true}',
    due: { delayMs: 3_600_000 },
  })
})
afterAll(async () => {
  await engine?.close()
  await redisServer?.stop()
})

const call = (event: Parameters<typeof handler>[0]) =>
  handler(event, lambdaContext({ budgetMs: 10_000 })) as Promise<ApiResponse>

async function writes(): Promise<number> {
  const info = await (engine.redis as Redis).info('persistence')
  return Number(/rdb_changes_since_last_save:(\d+)/.exec(info)![1])
}

/** docs/api.md: `{ "error": { "code", "message", "details"?: [{ path, message }] } }`, plus `job` on a 409 insert. */
function expectErrorBody(response: ApiResponse) {
  expect(response.headers['content-type']).toMatch(/^application\/json/)
  const body = JSON.parse(response.body!)
  expect(Object.keys(body).filter((k) => k !== 'job')).toEqual(['error'])
  const { code, message, details, ...rest } = body.error
  expect(rest).toEqual({})
  expect(STATUS_OF[code]).toBe(response.statusCode)
  expect(typeof message === 'string' && message.length > 0).toBe(true)
  if (details !== undefined) {
    expect(Array.isArray(details) && details.length > 0).toBe(true)
    for (const d of details)
      expect(typeof d.path === 'string' && typeof d.message === 'string' && d.message.length > 0).toBe(true)
  }
}

describe('API fuzzing with bad input', () => {
  it(
    `refuses ${RUNS} malformed or hostile requests: no 5xx, nothing accepted, no Redis write, error bodies`,
    async () => {
      // prepare
      const dbsize = await (engine.redis as Redis).dbsize()
      const statsBefore = await engine.store.stats()
      const writesBefore = await writes()
      const byKind = new Map<string, number>()
      const byStatus = new Map<number, number>()
      // act + assess, request by request (fast-check shrinks a failure to the smallest request that shows it)
      await fc.assert(
        fc.asyncProperty(badRequest, async ({ kind, event }) => {
          const before = await writes()
          const response = await call(event)
          byKind.set(kind, (byKind.get(kind) ?? 0) + 1)
          byStatus.set(response.statusCode, (byStatus.get(response.statusCode) ?? 0) + 1)
          expect(response.statusCode).toBeLessThan(500)
          if (response.statusCode === 200 && event.rawPath === '/jobs/batch') {
            // A batch envelope that parses answers per item: every item must be an error (a taken id's also names
            // the job that holds it, as a 409 does).
            const { results } = JSON.parse(response.body!)
            for (const r of results) expect(Object.keys(r).filter((k) => k !== 'job')).toEqual(['error'])
          } else {
            expect(response.statusCode).toBeGreaterThanOrEqual(400)
            expectErrorBody(response)
          }
          expect(await writes()).toBe(before)
        }),
        { numRuns: RUNS, endOnFailure: true },
      )
      // assess: the whole run
      expect(await writes()).toBe(writesBefore)
      expect(await (engine.redis as Redis).dbsize()).toBe(dbsize)
      expect(await engine.store.stats()).toEqual(statsBefore)
      expect(errorsLogged).toEqual([])
      expect(await engine.store.get('fuzz-existing')).toMatchObject({ payload: { keep: true } })
      recordFigures({
        case: 'api-fuzz',
        scenario:
          'fast-check: malformed and hostile API requests (types, numbers, nesting, size, UTF-8, ids, keys, content types, routes)',
        jobs: RUNS,
        faults: `${RUNS} bad requests`,
        lost: 0,
        duplicated: 0,
        notes: {
          answers: [...byStatus]
            .sort()
            .map(([s, n]) => `${s}: ${n}`)
            .join(', '),
          kinds: [...byKind].map(([k, n]) => `${k} ${n}`).join(', '),
          redisWrites: (await writes()) - writesBefore,
        },
      })
    },
    pick(60_000, 900_000),
  )

  it('refuses a job whose body is not valid UTF-8 rather than storing a payload altered to U+FFFD', async () => {
    // prepare: a job that is valid except for the bytes 0xff 0xfe inside its payload string
    const bytes = Buffer.concat([
      Buffer.from('{"queue":"orders","payload":"ab'),
      Buffer.from([0xff, 0xfe]),
      Buffer.from('"}'),
    ])
    const event = apiEvent('POST', '/jobs', undefined, { rawBytes: bytes })
    const before = await writes()
    // act
    const response = await call(event)
    // assess: DEVELOPERS.md "bad input gets a clear error and changes nothing"
    expect(response.statusCode).toBe(400)
    expectErrorBody(response)
    expect(await writes()).toBe(before)
  })
})
