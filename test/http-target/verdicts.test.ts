// Pure rules of HTTP deliveries: what an answer means (done, retried with Retry-After, to the DLQ), the callback's id
// and body, and the HTTP_TARGETS setting.
import { describe, expect, it } from 'vitest'
import { addressPolicy } from '../../src/http-target/address-policy'
import { retryAfterSeconds, verdictOfAnswer, verdictOfError } from '../../src/http-target/answer-verdict'
import { callbackJob } from '../../src/http-target/callback-job'
import { AddressRefusedError, DeliveryTimeoutError } from '../../src/http-target/errors'
import { readHttpTargets } from '../../src/http-target/target-settings'
import { createSender } from '../../src/http-target/send-request'
import type { Job } from '../../src/consumer'

const judge = addressPolicy()
const NOW = Date.parse('2027-01-04T10:00:00Z')
const answer = (status: number, headers: Record<string, string> = {}) => ({ status, headers, excerpt: 'x' })

describe('what an answer means', () => {
  it('is done on 2xx, retried on 408, 429 and 5xx, and to the DLQ on other 4xx and on 3xx', () => {
    expect([200, 201, 204, 299].map((s) => verdictOfAnswer(answer(s), judge, NOW).kind)).toEqual(
      Array(4).fill('delivered'),
    )
    expect([408, 429, 500, 502, 503, 504].map((s) => verdictOfAnswer(answer(s), judge, NOW).kind)).toEqual(
      Array(6).fill('retry'),
    )
    expect(
      [400, 401, 403, 404, 409, 410, 422, 301, 302, 307].map((s) => verdictOfAnswer(answer(s), judge, NOW).kind),
    ).toEqual(Array(10).fill('dead-letter'))
  })

  it('reads Retry-After as seconds or as an HTTP date, capped at 12 h, and ignores what it cannot read', () => {
    expect(retryAfterSeconds('120', NOW)).toBe(120)
    expect(retryAfterSeconds('Mon, 04 Jan 2027 10:01:30 GMT', NOW)).toBe(90)
    expect(retryAfterSeconds('Mon, 04 Jan 2027 09:00:00 GMT', NOW)).toBe(0)
    expect(retryAfterSeconds('999999', NOW)).toBe(43_200)
    expect(retryAfterSeconds('soon', NOW)).toBeUndefined()
    expect(retryAfterSeconds(undefined, NOW)).toBeUndefined()
    expect(verdictOfAnswer(answer(429, { 'retry-after': '30' }), judge, NOW)).toMatchObject({ afterSeconds: 30 })
  })

  it("reports a redirect's Location without its credentials, query or fragment (they can carry tokens)", () => {
    // prepare: a login redirect carrying a code and a password
    const location = 'https://user:pa55@login.example.com/oauth/cb?code=SECRET-CODE&state=s#token=SECRET-FRAGMENT'
    // act
    const verdict = verdictOfAnswer(answer(302, { location }), judge, NOW)
    // assess
    expect(verdict).toMatchObject({
      kind: 'dead-letter',
      reason: 'redirect not followed (Location: https://login.example.com/oauth/cb)',
    })
    const relative = verdictOfAnswer(answer(303, { location: '/signin?session=SECRET' }), judge, NOW)
    expect(relative).toMatchObject({ reason: 'redirect not followed (Location: /signin)' })
  })

  it('retries timeouts and connection errors, and dead-letters refused addresses', () => {
    expect(verdictOfError(new DeliveryTimeoutError('connect', 3000))).toEqual({
      kind: 'retry',
      reason: 'no connection within 3000 ms',
    })
    expect(
      verdictOfError(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:9'), { code: 'ECONNREFUSED' })).kind,
    ).toBe('retry')
    expect(verdictOfError(new AddressRefusedError('x.test', '10.0.0.1 is in 10.0.0.0/8 (private)'))).toEqual({
      kind: 'dead-letter',
      reason: 'refused to connect to x.test: 10.0.0.1 is in 10.0.0.0/8 (private)',
    })
  })
})

describe('callbacks', () => {
  const job = { id: 'order-42', queue: 'webhooks', attempt: 2 } as Job<unknown>

  it('get a stable id per job and kind, shortened to a digest when the job id is long', () => {
    const cb = callbackJob(job, 'failure', new URL('https://h.example.com/f'), {
      outcome: 'dead-lettered',
      attempts: 2,
    })
    expect(cb).toEqual({
      id: 'order-42:cb-failure',
      queue: 'webhooks',
      payload: {
        url: 'https://h.example.com/f',
        method: 'POST',
        body: {
          type: 'delayqueue.job.failed',
          jobId: 'order-42',
          queue: 'webhooks',
          outcome: 'dead-lettered',
          attempts: 2,
        },
      },
    })
    const long = { ...job, id: 'x'.repeat(128) }
    const a = callbackJob(long, 'success', new URL('https://h.example.com/'), { outcome: 'delivered', attempts: 1 })
    expect(a.id).toMatch(/^[0-9a-f]{40}:cb-success$/)
    expect(
      callbackJob(long, 'success', new URL('https://h.example.com/'), { outcome: 'delivered', attempts: 1 }).id,
    ).toBe(a.id)
  })
})

describe('HTTP_TARGETS', () => {
  it('reads names, or JSON with defaults, and refuses what it cannot use, naming the setting', () => {
    expect(Object.keys(readHttpTargets({ HTTP_TARGETS: 'webhooks, partner' }).queues)).toEqual(['webhooks', 'partner'])
    expect(readHttpTargets({ HTTP_TARGETS: '{"p":{"url":"https://a.example.com/","method":"PUT"}}' }).queues.p).toEqual(
      {
        url: 'https://a.example.com/',
        method: 'PUT',
      },
    )
    expect(readHttpTargets({}).queues).toEqual({})
    expect(() => readHttpTargets({ HTTP_TARGETS: '{"p":{"url":"http://a.example.com/"}}' })).toThrow(
      'invalid setting HTTP_TARGETS: "p": url must be an https URL',
    )
    expect(readHttpTargets({ HTTP_TARGETS: '{"p":{"url":"http://a/"}}', DEPLOY_STAGE: 'local' }).local).toBe(true)
    expect(() => readHttpTargets({ HTTP_TARGETS: '{"p":{"timeout":1}}' })).toThrow(/unknown fields timeout/)
    expect(() => readHttpTargets({ HTTP_TARGETS: '{"p":' })).toThrow(/HTTP_TARGETS: is not valid JSON/)
  })

  it('refuses, at start, default headers and URLs that every job of the queue would be refused for', () => {
    const read = (defaults: unknown) => () => readHttpTargets({ HTTP_TARGETS: JSON.stringify({ p: defaults }) })
    expect(read({ headers: { Host: 'internal.example' } })).toThrow(
      /HTTP_TARGETS: p\.headers\.Host is set by the forwarder/,
    )
    expect(read({ headers: { 'x-a': 'a\r\nx-injected: 1' } })).toThrow(
      /p\.headers\.x-a must hold only printable Latin-1 characters \(no line breaks/,
    )
    expect(read({ headers: { 'Proxy-Authorization': 'x' } })).toThrow(/p\.headers\.Proxy-Authorization/)
    expect(read({ url: 'https://user:pw@partner.example.com/' })).toThrow(/p\.url must not carry credentials/)
    expect(read({ url: 'https://partner.example.com/', headers: { authorization: 'Bearer x' } })).not.toThrow()
    expect(read({})).not.toThrow()
  })
})

describe('the connect timeout', () => {
  it('cuts a connection whose name does not resolve in time (the lookup is part of connecting), without any traffic', async () => {
    // prepare: a resolver that never answers
    const sender = createSender(() => new Promise(() => undefined), addressPolicy())
    const started = performance.now()
    // act
    const sent = sender.send(
      { url: new URL('http://slow.test/'), method: 'POST', headers: {} },
      { connectTimeoutMs: 300, totalTimeoutMs: 5_000 },
    )
    // assess
    await expect(sent).rejects.toThrow(new DeliveryTimeoutError('connect', 300))
    expect(performance.now() - started).toBeLessThan(2_000)
    sender.close()
  })
})
