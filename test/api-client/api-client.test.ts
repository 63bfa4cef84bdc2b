// The signed API client against the real API handler served over HTTP on loopback, with a real Redis behind it.
import { Hash } from '@smithy/core/serde'
import { SignatureV4 } from '@smithy/signature-v4'
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import { createApiHandler } from '../../src/api/handler'
import { DelayQueueApiClient, DelayQueueApiError, JobConflictError } from '../../src/api-client'
import { apiErrorOf } from '../../src/api-client/errors'
import { regionOf, sigV4Signer, signingServiceOf } from '../../src/api-client/signer'
import { retryDelayMs } from '../../src/api-client/transport'
import type { Log } from '../../src/logger'
import { createEngine, type Engine } from '../../src/store/engine'
import { startTcpProxy, type TcpProxy } from '../support/tcp-proxy'
import { redisSnapshot, servedApi, testConfig } from '../api/api-helpers'
import { serveApi, type ApiServer, type ReceivedRequest } from '../support/api-server'

const quiet: Log = { info: () => {}, warn: () => {}, error: () => {} }
const credentials = { accessKeyId: 'AKIDLOCALTEST', secretAccessKey: 'local-secret', sessionToken: 'local-session' }
const region = 'eu-west-1'

const served = servedApi()

const client = (url = served.api.url, retry = {}) => new DelayQueueApiClient({ url, region, credentials, retry })

/** Signs the request again from what the server received: equal only if nothing signed changed on the way. */
async function resign(r: ReceivedRequest): Promise<string> {
  const auth = r.headers.authorization!
  const signedHeaders = /SignedHeaders=([^,]+)/.exec(auth)![1]!.split(';')
  const headers: Record<string, string> = {}
  for (const name of signedHeaders) headers[name] = r.headers[name]!
  const [path, query = ''] = r.url.split('?') as [string, string?]
  const d = r.headers['x-amz-date']!
  const signingDate = new Date(
    `${d.slice(0, 4)}-${d.slice(4, 6)}-${d.slice(6, 8)}T${d.slice(9, 11)}:${d.slice(11, 13)}:${d.slice(13, 15)}Z`,
  )
  const signer = new SignatureV4({ service: 'execute-api', region, credentials, sha256: Hash.bind(null, 'sha256') })
  const signed = await signer.sign(
    {
      method: r.method,
      protocol: 'http:',
      hostname: '127.0.0.1',
      path,
      query: Object.fromEntries(new URLSearchParams(query)),
      headers,
      ...(r.body ? { body: r.body } : {}),
    },
    { signingDate, unsignableHeaders: new Set(Object.keys(r.headers).filter((h) => !signedHeaders.includes(h))) },
  )
  return signed.headers.authorization!
}

describe('DelayQueueApiClient: SigV4 signing', () => {
  it('signs every request with well-formed SigV4 headers that verify against the request as received', async () => {
    // prepare
    const from = served.api.received.length
    const c = client()
    // act
    const job = await c.schedule({ id: `sig-${Date.now()}`, queue: 'orders', payload: { orderId: 7 }, delayMs: 60_000 })
    await c.get(job.id)
    await c.cancel(job.id)
    await c.listSchedules({ limit: 5, cursor: 'a:b' })
    // assess
    const sent = served.api.received.slice(from)
    expect(sent.map((r) => `${r.method} ${r.url}`)).toEqual([
      'POST /jobs',
      `GET /jobs/${encodeURIComponent(job.id)}`,
      `DELETE /jobs/${encodeURIComponent(job.id)}`,
      'GET /schedules?cursor=a%3Ab&limit=5',
    ])
    for (const r of sent) {
      const auth = r.headers.authorization ?? ''
      const m =
        /^AWS4-HMAC-SHA256 Credential=AKIDLOCALTEST\/(\d{8})\/eu-west-1\/execute-api\/aws4_request, SignedHeaders=([a-z0-9;-]+), Signature=([0-9a-f]{64})$/.exec(
          auth,
        )
      expect(m, auth).not.toBeNull()
      expect(r.headers['x-amz-date']).toMatch(/^\d{8}T\d{6}Z$/)
      expect(r.headers['x-amz-date']!.slice(0, 8)).toBe(m![1])
      expect(r.headers['x-amz-security-token']).toBe('local-session')
      const signed = m![2]!.split(';')
      expect(signed).toEqual(expect.arrayContaining(['host', 'x-amz-date', 'x-amz-security-token']))
      if (r.body) expect(signed).toContain('content-type')
      expect(await resign(r)).toBe(auth)
    }
  })

  it('takes the signing region from an execute-api host, else from AWS_REGION', () => {
    expect(regionOf(new URL('https://a1b2c3.execute-api.ap-southeast-2.amazonaws.com'), {})).toBe('ap-southeast-2')
    expect(regionOf(new URL('https://jobs.example.com'), { AWS_REGION: 'eu-central-1' })).toBe('eu-central-1')
    expect(() => regionOf(new URL('https://jobs.example.com'), {})).toThrow(/region/)
  })

  it("signs for the service lambda, in the URL's region, when the API is a Function URL (the default front door)", async () => {
    // prepare
    const url = new URL('https://abcdefghijklmnopqrstuvwxyz012345.lambda-url.eu-west-3.on.aws/jobs')
    const credentials = { accessKeyId: 'AKIDLOCALTEST', secretAccessKey: 'secret' }
    // act
    const headers = await sigV4Signer(
      regionOf(url, {}),
      credentials,
      signingServiceOf(url),
    )({
      method: 'GET',
      url,
      headers: {},
    })
    // assess
    expect(signingServiceOf(url)).toBe('lambda')
    expect(signingServiceOf(new URL('https://a1b2c3.execute-api.eu-west-3.amazonaws.com'))).toBe('execute-api')
    expect(headers.authorization).toMatch(/Credential=AKIDLOCALTEST\/\d{8}\/eu-west-3\/lambda\/aws4_request/)
  })
})

describe('DelayQueueApiClient: every route of the real API', () => {
  it('schedules, looks up, reschedules, cancels and counts jobs', async () => {
    const c = client()
    const id = `route-${Date.now()}`
    // act + assess, route by route
    const scheduled = await c.schedule({ id, queue: 'orders', payload: { orderId: 1 }, delayMs: 60_000 })
    expect(scheduled).toMatchObject({ id, queue: 'orders', status: 'scheduled' })
    expect(await c.get(id)).toMatchObject({ id, queue: 'orders', payload: { orderId: 1 }, status: 'scheduled' })
    const replaced = await c.reschedule(id, { queue: 'emails', payload: { to: 'x' }, delayMs: 120_000 })
    expect(replaced).toMatchObject({ id, queue: 'emails', created: false })
    const created = await c.reschedule(`${id}-new`, { queue: 'orders', payload: 2 })
    expect(created.created).toBe(true)
    expect((await c.stats()).queues.emails!.pending).toBeGreaterThanOrEqual(1)
    await c.cancel(id)
    expect(await c.get(id)).toBeNull()
  })

  it('answers a batch with one result per job, in order, refusals typed', async () => {
    const results = await client().scheduleMany([
      { queue: 'orders', payload: 1 },
      { queue: 'nope', payload: 2 },
    ])
    expect(results[0]).toMatchObject({ status: 'scheduled' })
    expect(results[1]).toMatchObject({ error: { code: 'ValidationError', details: [{ path: 'queue' }] } })
  })

  it('throws a typed ValidationError naming the field, and changes nothing', async () => {
    const before = await redisSnapshot(served.engine)
    const error = await client()
      .schedule({ queue: 'orders', payload: 1, delayMs: -5 })
      .catch((e) => e)
    expect(error).toBeInstanceOf(DelayQueueApiError)
    expect(error).toMatchObject({
      status: 400,
      code: 'ValidationError',
      details: [{ path: 'delayMs', message: 'must be an integer >= 0' }],
    })
    expect(await redisSnapshot(served.engine)).toEqual(before)
  })

  it('throws JobConflictError naming the job that holds a taken id, without its payload', async () => {
    // prepare
    const c = client()
    const id = `taken-${Date.now()}`
    const first = await c.schedule({ id, queue: 'orders', payload: { secret: 'first' }, delayMs: 60_000 })
    // act
    const other = await c.schedule({ id, queue: 'orders', payload: { secret: 'other' } }).catch((e) => e)
    const same = await c
      .schedule({ id, queue: 'orders', payload: { secret: 'first' }, delayMs: 60_000 })
      .catch((e) => e)
    // assess: a first attempt that meets a taken id is a conflict, even with the same content (another call: another
    // key), and the conflict says nothing of the payload, not even whether it is the same
    expect(other).toBeInstanceOf(JobConflictError)
    expect(other.existing).toEqual({
      id,
      queue: 'orders',
      status: 'scheduled',
      runAt: first.runAt,
      createdAt: first.createdAt,
    })
    expect(JSON.stringify(other.existing)).not.toContain('secret')
    expect(same).toBeInstanceOf(JobConflictError)
    expect(same.existing).toEqual(other.existing)
  })

  it('sends an Idempotency-Key on every schedule() and reschedule() (one per call, or yours); a call with the same key is answered as the first', async () => {
    // prepare
    const from = served.api.received.length
    const c = client()
    const id = `key-${Date.now()}`
    const first = await c.schedule({ id, queue: 'orders', payload: 1, delayMs: 60_000 })
    await c.reschedule(id, { queue: 'orders', payload: 2, delayMs: 60_000 })
    await c.reschedule(id, { queue: 'orders', payload: 3, delayMs: 60_000 })
    // act: your own retry of a create whose outcome you did not learn, with your key
    const idempotencyKey = 'my-own-key-0001'
    const mine = { id: `${id}.mine`, queue: 'orders', payload: 3, delayMs: 60_000 }
    const made = await c.schedule(mine, { idempotencyKey })
    const again = await c.schedule(mine, { idempotencyKey })
    // assess: each call its own key, and the second call with your key is not a 409
    const keys = served.api.received.slice(from).map((r) => r.headers['idempotency-key'])
    expect(first.id).toBe(id)
    expect(keys).toHaveLength(5)
    for (const k of keys.slice(0, 3)) expect(k).toMatch(/^[A-Za-z0-9_-]{22}$/)
    expect(new Set(keys.slice(0, 3)).size).toBe(3)
    expect(keys.slice(3)).toEqual([idempotencyKey, idempotencyKey])
    expect(again).toEqual(made)
  })

  it('refuses your idempotencyKey on a schedule() without an id, naming id, and sends nothing', async () => {
    // prepare
    const from = served.api.received.length
    // act
    const error = await client()
      .schedule({ queue: 'orders', payload: 1 }, { idempotencyKey: 'my-own-key-0002' })
      .catch((e) => e)
    // assess: as DelayQueue refuses it (the key is kept under the id; an id made per call would defeat it)
    expect(error).toBeInstanceOf(DelayQueueApiError)
    expect(error).toMatchObject({ status: 400, code: 'ValidationError' })
    expect(error.details).toEqual([{ path: 'id', message: 'is required with an idempotency key' }])
    expect(served.api.received.length).toBe(from)
  })

  it('throws NotFound when cancelling a job that is not pending', async () => {
    await expect(client().cancel('no-such-job')).rejects.toMatchObject({ status: 404, code: 'NotFound' })
  })
})

describe('DelayQueueApiClient: recurring schedules', () => {
  it('creates, reads, lists, pauses, resumes and removes a schedule', async () => {
    const c = client()
    const id = `digest-${Date.now()}`
    // act + assess, route by route
    const created = await c.putSchedule(id, {
      queue: 'emails',
      payload: { digest: true },
      cron: '0 9 * * MON-FRI',
      timezone: 'Europe/Berlin',
    })
    expect(created).toMatchObject({
      id,
      queue: 'emails',
      cron: '0 9 * * MON-FRI',
      timezone: 'Europe/Berlin',
      created: true,
    })
    expect((await c.putSchedule(id, { queue: 'emails', payload: { digest: 2 }, everyMs: 60_000 })).created).toBe(false)
    expect(await c.getSchedule(id)).toMatchObject({ id, everyMs: 60_000, payload: { digest: 2 } })
    const page = await c.listSchedules({ limit: 100 })
    expect(page.schedules.map((s) => s.id)).toContain(id)
    expect((await c.pauseSchedule(id)).nextRunAt).toBeNull()
    expect((await c.pauseSchedule(id, false)).nextRunAt).not.toBeNull()
    await c.deleteSchedule(id)
    expect(await c.getSchedule(id)).toBeNull()
    await expect(c.deleteSchedule(id)).rejects.toMatchObject({ status: 404, code: 'NotFound' })
  })

  it('refuses a bad list limit with a typed ValidationError naming the parameter', async () => {
    await expect(client().listSchedules({ limit: 0 })).rejects.toMatchObject({
      status: 400,
      details: [{ path: 'limit' }],
    })
  })
})

describe('DelayQueueApiClient: 503 retries', () => {
  let proxy: TcpProxy
  let downEngine: Engine
  let downApi: ApiServer

  beforeAll(async () => {
    // The API's Redis behind a proxy the tests cut: the real handler then answers 503 ServiceUnavailable.
    proxy = await startTcpProxy(Number(new URL(inject('redisUrl')).port))
    downEngine = createEngine(testConfig({ REDIS_URL: `redis://127.0.0.1:${proxy.port}` }), {
      commandTimeoutMs: 1_000,
      maxRetriesPerRequest: 1,
      logger: quiet,
    })
    downEngine.redis.on('error', () => {})
    downApi = await serveApi(createApiHandler(downEngine, { logger: quiet }))
  })

  afterAll(async () => {
    await downApi.close()
    downEngine.redis.disconnect()
    await proxy.close()
  })

  it('retries a 503 with backoff and succeeds once the API recovers', async () => {
    // prepare: Redis unreachable until the first 503 has gone out
    await proxy.cut()
    downApi.received.length = 0
    downApi.onAnswered = (r) => r.status === 503 && void proxy.restore()
    // act
    const job = await client(downApi.url, { attempts: 8, baseDelayMs: 100, maxDelayMs: 400 }).schedule({
      id: `retry-${Date.now()}`,
      queue: 'orders',
      payload: 1,
      delayMs: 60_000,
    })
    downApi.onAnswered = undefined
    // assess
    expect(job.status).toBe('scheduled')
    expect(downApi.received[0]!.status).toBe(503)
    expect(downApi.received.at(-1)!.status).toBe(201)
    expect(downApi.received.length).toBeGreaterThanOrEqual(2)
  })

  it('gives up after the configured attempts with a typed ServiceUnavailable error', async () => {
    await proxy.cut()
    downApi.received.length = 0
    const error = await client(downApi.url, { attempts: 3, baseDelayMs: 10, maxDelayMs: 20 })
      .stats()
      .catch((e) => e)
    expect(error).toMatchObject({ status: 503, code: 'ServiceUnavailable' })
    expect(downApi.received.map((r) => r.status)).toEqual([503, 503, 503])
    await proxy.restore()
  })

  it('never retries other answers: a 400 is sent once', async () => {
    downApi.received.length = 0
    await client(downApi.url)
      .schedule({ queue: 'nope', payload: 1 })
      .catch(() => {})
    expect(downApi.received).toHaveLength(1)
  })

  it('doubles the delay with jitter, within the cap, and honours Retry-After', () => {
    const policy = { attempts: 5, baseDelayMs: 100, maxDelayMs: 1_000 }
    expect([1, 2, 3, 4, 5].map((n) => retryDelayMs(policy, n, null, () => 1))).toEqual([100, 200, 400, 800, 1_000])
    expect(retryDelayMs(policy, 3, null, () => 0)).toBe(200)
    expect(retryDelayMs(policy, 1, '1', () => 0)).toBe(1_000)
  })
})

describe('API Gateway answers without the API error body', () => {
  it('maps a 403 from a missing execute-api:Invoke grant to Forbidden', () => {
    const error = apiErrorOf(403, '{"message":"Forbidden"}')
    expect(error).toMatchObject({ status: 403, code: 'Forbidden', message: 'Forbidden', details: [] })
  })
})
