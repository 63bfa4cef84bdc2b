// Scenario: Redis becomes unreachable (a TCP proxy in front of it refuses and drops every connection) while the
// real Lambda entry points run: functions/api.ts answers 503 with a clear error meanwhile, never hangs, and both
// it and functions/scan.ts heal by themselves once Redis is back; jobs due during the outage are delivered.
import { sleep } from '../../devkit/sleep'
import type { Context } from 'aws-lambda'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { startTcpProxy, type TcpProxy } from '../support/tcp-proxy'
import type { ApiResponse } from '../../src/api/response'
import { audit, startStage, waitForDrain, type Stage } from './harness'
import { apiEvent, lambdaContext } from '../support/lambda'
import { recordFigures } from './results'
import { pick } from './scale'

const OUTAGE_MS = pick(2_500, 10_000)
const JOBS = pick(200, 2_000)

let stage: Stage
let proxy: TcpProxy
let api: (e: unknown, c: Context) => Promise<ApiResponse>
let scan: (e: unknown, c: Context) => Promise<{ dispatched: number; errors: number }>
const logged: string[] = []

beforeAll(async () => {
  stage = await startStage({ env: { LEASE_MS: '2000', SAFETY_MARGIN_MS: '1000' } })
  proxy = await startTcpProxy(stage.redis.port)
  // The entry points read their configuration at module scope, like a Lambda cold start.
  Object.assign(process.env, { ...stage.env, REDIS_URL: `redis://127.0.0.1:${proxy.port}` })
  // Everything the functions write (Powertools Logger and Metrics write to stdout / stderr through their own console).
  for (const stream of [process.stdout, process.stderr]) {
    vi.spyOn(stream, 'write').mockImplementation((chunk: unknown) => {
      logged.push(String(chunk))
      return true
    })
  }
  api = (await import('../../functions/api')).handler as never
  scan = (await import('../../functions/scan')).handler as never
})
afterAll(async () => {
  vi.restoreAllMocks()
  await proxy?.close()
  await stage?.close()
})

const post = (body: unknown) => api(apiEvent('POST', '/jobs', body), lambdaContext({ budgetMs: 30_000 }))

describe(`Redis unreachable for ${OUTAGE_MS / 1000} s`, () => {
  it(
    'answers 503 meanwhile, then the API and the scan function recover by themselves and lose nothing',
    async () => {
      // prepare: jobs accepted before the outage, due in the middle of it
      const accepted: string[] = []
      for (let i = 0; i < JOBS; i++) {
        const r = await post({
          queue: 'orders',
          payload: { i, marker: 'payload-marker-77' },
          delayMs: 500 + Math.floor((i / JOBS) * OUTAGE_MS),
          id: `out-${i}`,
        })
        expect(r.statusCode).toBe(201)
        accepted.push(`out-${i}`)
      }
      const invocation = scan({}, lambdaContext({ budgetMs: OUTAGE_MS + pick(5_000, 12_000) }))

      // act: cut Redis off; keep calling the API meanwhile
      await sleep(300)
      await proxy.cut()
      const cutAt = Date.now()
      const during: { status: number; ms: number; body: any; retryAfter?: string }[] = []
      while (Date.now() - cutAt < OUTAGE_MS - 1_500) {
        const t = Date.now()
        const r = await post({ queue: 'orders', payload: { during: true }, id: `during-${during.length}` })
        during.push({
          status: r.statusCode,
          ms: Date.now() - t,
          body: JSON.parse(r.body!),
          retryAfter: r.headers['retry-after'],
        })
        const stats = await api(apiEvent('GET', '/stats'), lambdaContext({ budgetMs: 30_000 }))
        during.push({ status: stats.statusCode, ms: Date.now() - t, body: JSON.parse(stats.body!) })
        await sleep(200)
      }
      await sleep(Math.max(0, OUTAGE_MS - (Date.now() - cutAt)))
      await proxy.restore()
      const restoredAt = Date.now()
      let recoveredMs = -1
      while (Date.now() - restoredAt < 15_000) {
        const r = await post({ queue: 'orders', payload: { after: true }, id: `after-${Date.now()}` })
        if (r.statusCode === 201) {
          recoveredMs = Date.now() - restoredAt
          accepted.push(JSON.parse(r.body!).id)
          break
        }
        await sleep(100)
      }
      const report = await invocation
      // A second invocation (the next minute) finishes whatever is left.
      let drained = await waitForDrain(stage.engine, 1_000)
      if (!drained) {
        await scan({}, lambdaContext({ budgetMs: 8_000 }))
        drained = await waitForDrain(stage.engine, 5_000)
      }

      // assess
      const result = await audit(stage, accepted)
      recordFigures({
        case: 'redis-outage',
        scenario: 'Redis unreachable (connections refused and dropped); real api + scan entry points',
        jobs: accepted.length,
        faults: `Redis cut off for ${OUTAGE_MS / 1000} s`,
        lost: result.lost.length,
        duplicated: result.duplicated,
        notes: {
          apiCallsDuringOutage: during.length,
          answered503: during.filter((d) => d.status === 503).length,
          slowestAnswerDuringOutageMs: Math.max(...during.map((d) => d.ms)),
          apiRecoveredAfterMs: recoveredMs,
          scanErrorsSurvived: report.errors,
          drained,
        },
      })
      expect(during.length).toBeGreaterThan(2)
      for (const d of during) {
        expect(d.status).toBe(503)
        expect(d.body).toEqual({
          error: { code: 'ServiceUnavailable', message: expect.stringMatching(/Redis.*unavailable/) },
        })
        // Well inside the API function's 10 s timeout: the caller gets an answer, not a Lambda timeout.
        expect(d.ms).toBeLessThan(8_000)
      }
      expect(during.filter((d) => d.retryAfter !== undefined).length).toBeGreaterThan(0)
      // -1 means no write was accepted within 15 s of Redis coming back
      expect(recoveredMs).not.toBe(-1)
      expect(report.errors).toBeGreaterThan(0)
      expect(report.dispatched).toBeGreaterThan(0)
      expect(drained).toBe(true)
      expect(result.lost).toEqual([])
      expect(result.dead).toBe(0)
      // Logs speak of the outage without a payload in them.
      expect(logged.some((l) => /unavailable|claim failed/.test(l))).toBe(true)
      // Powertools Logger lines, each with the Lambda request id of the invocation that wrote it
      const warnings = logged.filter((l) => l.includes('"level":"WARN"'))
      expect(warnings.length).toBeGreaterThan(0)
      for (const l of warnings) expect(JSON.parse(l).function_request_id).toEqual(expect.any(String))
      expect(logged.filter((l) => l.includes('"during":true') || l.includes('payload-marker-77'))).toEqual([])
    },
    pick(60_000, 120_000),
  )
})
