// The dev stack (`npm run dev`) against web pages: a page of another site, open in this machine's browser, must not
// read or change anything through the local API, serverless-offline's Lambda endpoint or the local SQS endpoint, and
// a name rebound to 127.0.0.1 (DNS rebinding) is refused on every port. In headless Chromium, where `attacker.test`
// resolves to 127.0.0.1 (--host-resolver-rules) like a rebound name, and over HTTP with hand-set headers.
import { createServer, request } from 'node:http'
import type { Browser } from 'playwright-core'
import { HAVE_CHROMIUM, launchChromium, requireChromium } from '../support/chromium'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { devStackForFile } from '../support/dev-stack'
import { uniquePrefix } from '../support/engine'
import { listenOnLoopback, type LoopbackServer } from '../../devkit/loopback-server'

requireChromium("the dev stack's browser tests")

// No scan ticks and no consumer: only the API and the Lambda endpoint are under test.
const dev = devStackForFile({
  env: { KEY_PREFIX: uniquePrefix('origins'), SDQ_LOCAL_ALLOWED_ORIGINS: 'http://allowed.test:5173' },
  scanTickMs: 0,
  exampleConsumer: false,
})
let browser: Browser | undefined
/** The attacker's page server (any path answers an empty page of its own). */
let attacker: LoopbackServer

beforeAll(async () => {
  attacker = await listenOnLoopback(
    createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' })
      res.end('<h1>another site</h1>')
    }),
  )
  if (HAVE_CHROMIUM) browser = await launchChromium(['--host-resolver-rules=MAP attacker.test 127.0.0.1'])
}, 60_000)

afterAll(async () => {
  await browser?.close()
  await attacker?.close()
})

/** A job with a payload worth stealing, an hour away. */
async function secretJob(id: string) {
  const res = await fetch(`${dev.stack.apiUrl}/jobs`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ id, queue: 'orders', payload: { otp: '4711' }, delayMs: 3_600_000 }),
  })
  expect(res.status).toBe(201)
}
const jobStatus = async (id: string) => (await fetch(`${dev.stack.apiUrl}/jobs/${id}`)).status

/** serverless-offline's Lambda endpoint URL of the API function, and a forged HTTP API event reading job `id`. */
function forgedRead(id: string) {
  const url = `${dev.stack.lambdaUrl}/2015-03-31/functions/${dev.stack.spec.functionNames.api}/invocations`
  const event = {
    version: '2.0',
    routeKey: 'GET /jobs/{id}',
    rawPath: `/jobs/${id}`,
    rawQueryString: '',
    headers: {},
    pathParameters: { id },
    requestContext: { http: { method: 'GET', path: `/jobs/${id}` } },
    isBase64Encoded: false,
  }
  return { url, body: JSON.stringify(event) }
}

/** A request to a port of the stack with the headers given as they are, Host included. */
function call(url: string, method: string, headers: Record<string, string>, body = '') {
  const { hostname, port, pathname } = new URL(url)
  return new Promise<{ status: number; headers: Record<string, unknown>; body: string }>((ok, fail) => {
    const req = request(
      { host: hostname, port, method, path: pathname, headers, setHost: !('host' in headers) },
      (res) => {
        let text = ''
        res.on('data', (c) => (text += c))
        res.on('end', () => ok({ status: res.statusCode!, headers: res.headers, body: text }))
      },
    )
    req.once('error', fail)
    req.end(body)
  })
}

describe.skipIf(!HAVE_CHROMIUM)("the dev stack against another site's page in a browser", () => {
  it('lets the page read nothing through the API and change nothing: read, list, cancel and create all refused', async () => {
    // prepare
    await secretJob('origin-secret-1')
    const page = await browser!.newPage()
    try {
      await page.goto(`http://attacker.test:${attacker.port}/`)
      // act: what the attacker did, from the page (cors mode to read, no-cors to change without a preflight)
      const tried = await page.evaluate(async (api) => {
        const attempt = async (run: () => Promise<Response>) => {
          try {
            const res = await run()
            return res.type === 'opaque' ? 'sent' : `${res.status} ${await res.text()}`
          } catch {
            return 'blocked'
          }
        }
        return {
          read: await attempt(() => fetch(`${api}/jobs/origin-secret-1`, { credentials: 'include' })),
          list: await attempt(() => fetch(`${api}/jobs`)),
          cancel: await attempt(() => fetch(`${api}/jobs/origin-secret-1`, { method: 'DELETE', mode: 'no-cors' })),
          create: await attempt(() =>
            fetch(`${api}/jobs`, {
              method: 'POST',
              mode: 'no-cors',
              headers: { 'content-type': 'text/plain' },
              body: JSON.stringify({ id: 'origin-planted-1', queue: 'orders', payload: {} }),
            }),
          ),
        }
      }, dev.stack.apiUrl)
      // assess: nothing readable, the job still there, nothing created
      expect(tried.read).toBe('blocked')
      expect(tried.list).toBe('blocked')
      expect(await jobStatus('origin-secret-1')).toBe(200)
      expect(await jobStatus('origin-planted-1')).toBe(404)
    } finally {
      await page.close()
    }
  }, 30_000)

  it("lets the page run nothing through serverless-offline's Lambda endpoint (a forged API event, text/plain)", async () => {
    // prepare
    await secretJob('origin-secret-2')
    const forged = forgedRead('origin-secret-2')
    const page = await browser!.newPage()
    try {
      await page.goto(`http://attacker.test:${attacker.port}/`)
      // act: a simple request (text/plain, no preflight) whose answer the page tries to read
      const answer = await page.evaluate(async ({ url, body }) => {
        try {
          const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'text/plain' }, body })
          return await res.text()
        } catch {
          return 'blocked'
        }
      }, forged)
      // assess
      expect(answer).toBe('blocked')
    } finally {
      await page.close()
    }
  }, 30_000)

  it('refuses a page whose name was rebound to 127.0.0.1, on the API and on the Lambda endpoint', async () => {
    // prepare
    await secretJob('origin-secret-3')
    const forged = forgedRead('origin-secret-3')
    const page = await browser!.newPage()
    try {
      for (const base of [dev.stack.apiUrl, dev.stack.lambdaUrl]) {
        // act: the attacker's page at the port itself, then its own same-origin requests
        const port = new URL(base).port
        const opened = await page.goto(`http://attacker.test:${port}/`)
        const answers = await page.evaluate(
          async ({ body }) => [
            (await fetch('/jobs/origin-secret-3')).status,
            (await fetch(new URL(body.url).pathname, { method: 'POST', body: body.body })).status,
          ],
          { body: forged },
        )
        // assess
        expect({ base, opened: opened?.status(), answers }).toEqual({ base, opened: 421, answers: [421, 421] })
      }
      expect(await jobStatus('origin-secret-3')).toBe(200)
    } finally {
      await page.close()
    }
  }, 30_000)
})

describe('the dev stack: whom its ports answer', () => {
  it('answers only loopback Hosts on every port: API, Lambda endpoint, SQS endpoint, dashboard', async () => {
    const { apiUrl, lambdaUrl, sqsEndpoint, dashboardUrl } = dev.stack
    for (const url of [apiUrl, lambdaUrl, sqsEndpoint, dashboardUrl]) {
      // act
      const answer = await call(`${url}/`, 'GET', { host: 'evil.example' })
      // assess
      expect({ url, status: answer.status }).toEqual({ url, status: 421 })
      expect(JSON.parse(answer.body).error.code).toBe('MisdirectedRequest')
    }
  })

  it("refuses another site's Origin on the API, the Lambda endpoint and the SQS endpoint, and sends no CORS headers", async () => {
    // prepare
    await secretJob('origin-secret-4')
    const forged = forgedRead('origin-secret-4')
    const evil = { origin: 'http://evil.example', 'content-type': 'text/plain' }
    // act
    const answers = {
      api: await call(`${dev.stack.apiUrl}/jobs/origin-secret-4`, 'GET', { origin: evil.origin }),
      lambda: await call(forged.url, 'POST', evil, forged.body),
      sqs: await call(`${dev.stack.sqsEndpoint}/`, 'POST', {
        ...evil,
        'content-type': 'application/x-www-form-urlencoded',
      }),
    }
    // assess: 403, no payload, no access-control-* header
    for (const [port, answer] of Object.entries(answers)) {
      expect({ port, status: answer.status }).toEqual({ port, status: 403 })
      expect(answer.body).not.toContain('4711')
      expect(Object.keys(answer.headers).filter((h) => h.startsWith('access-control-'))).toEqual([])
    }
  })

  it('answers callers without an Origin (curl, the SDKs) with no CORS headers, and an allowed origin with its own', async () => {
    // prepare
    await secretJob('origin-secret-5')
    // act
    const plain = await call(`${dev.stack.apiUrl}/jobs/origin-secret-5`, 'GET', {})
    const allowed = await call(`${dev.stack.apiUrl}/jobs/origin-secret-5`, 'GET', {
      origin: 'http://allowed.test:5173',
    })
    const preflight = await call(`${dev.stack.apiUrl}/jobs`, 'OPTIONS', {
      origin: 'http://allowed.test:5173',
      'access-control-request-method': 'POST',
      'access-control-request-headers': 'content-type',
    })
    // assess
    expect(plain.status).toBe(200)
    expect(Object.keys(plain.headers).filter((h) => h.startsWith('access-control-'))).toEqual([])
    expect(allowed.status).toBe(200)
    expect(allowed.headers['access-control-allow-origin']).toBe('http://allowed.test:5173')
    expect(allowed.headers['access-control-allow-credentials']).toBeUndefined()
    expect(preflight.status).toBe(204)
    expect(preflight.headers['access-control-allow-methods']).toContain('POST')
  })
})
