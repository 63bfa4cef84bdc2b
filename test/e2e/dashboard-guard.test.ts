// The operator dashboard against pages of other sites: it answers only requests addressed to its own loopback names
// (a name rebound to 127.0.0.1 by an attacker's DNS is refused) and cannot be framed. Over HTTP with hand-set
// headers, and in headless Chromium, where `attacker.test` resolves to 127.0.0.1 (--host-resolver-rules) like a
// rebound name. The dashboard runs alone over the suite's redis-server.
import { createServer, request, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { Browser } from 'playwright-core'
import { HAVE_CHROMIUM, launchChromium, requireChromium } from '../support/chromium'
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest'
import { DelayQueue } from '../../src/direct/delay-queue'
import { loadConfig } from '../../src/config'
import { startDashboard, type Dashboard } from '../../src/ops/dashboard/server'
import { createEngine, type Engine } from '../../src/store/engine'
import { uniquePrefix } from '../support/engine'

requireChromium("the dashboard guard's browser tests")

let engine: Engine
let dashboard: Dashboard
let port: number
/** A page of another site that frames the dashboard, served on another loopback port. */
let framer: Server
let framerPort: number
let browser: Browser | undefined
let queue: DelayQueue

beforeAll(async () => {
  engine = createEngine(
    loadConfig({
      REDIS_URL: inject('redisUrl'),
      QUEUES: 'orders=http://127.0.0.1:9/orders',
      KEY_PREFIX: uniquePrefix('guard'),
    }),
  )
  queue = new DelayQueue(engine)
  dashboard = await startDashboard(engine)
  port = Number(new URL(dashboard.url).port)
  framer = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html' })
    res.end(
      `<h1>another site</h1><iframe id="victim" src="http://127.0.0.1:${port}/" width="800" height="600"></iframe>`,
    )
  })
  await new Promise<void>((ok) => framer.listen(0, '127.0.0.1', ok))
  framerPort = (framer.address() as AddressInfo).port
  if (HAVE_CHROMIUM) browser = await launchChromium(['--host-resolver-rules=MAP attacker.test 127.0.0.1'])
}, 60_000)

afterAll(async () => {
  await browser?.close()
  await new Promise((ok) => framer?.close(ok))
  await dashboard?.close()
  await engine?.close()
})

/** A request to the dashboard (on 127.0.0.1) with the headers given as they are, Host included. */
function call(method: string, path: string, headers: Record<string, string>) {
  return new Promise<{ status: number; headers: Record<string, unknown>; body: string }>((ok, fail) => {
    const req = request({ host: '127.0.0.1', port, method, path, headers, setHost: !('host' in headers) }, (res) => {
      let body = ''
      res.on('data', (c) => (body += c))
      res.on('end', () => ok({ status: res.statusCode!, headers: res.headers, body }))
    })
    req.once('error', fail)
    req.end()
  })
}

const pendingJob = async (id: string) =>
  (await queue.schedule({ id, queue: 'orders', payload: { id }, delayMs: 3_600_000 })).id

describe('dashboard server: whom it answers', () => {
  it('answers its own loopback names at its port: 127.0.0.1, localhost, [::1]', async () => {
    // prepare
    const id = await pendingJob('guard-read-1')
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`, `LOCALHOST:${port}`]) {
      // act
      const answer = await call('GET', `/api/jobs/${id}`, { host })
      // assess
      expect({ host, status: answer.status }).toEqual({ host, status: 200 })
      expect(JSON.parse(answer.body).id).toBe(id)
    }
  })

  it('refuses any other Host with 421 and the JSON error body, reading nothing', async () => {
    // prepare
    const id = await pendingJob('guard-read-2')
    const others = [
      'attacker.example',
      `attacker.example:${port}`,
      `127.0.0.1:${port + 1}`,
      '127.0.0.1',
      `10.0.0.1:${port}`,
    ]
    for (const host of others) {
      for (const path of ['/', '/app.js', `/api/jobs/${id}`, '/api/overview']) {
        // act
        const answer = await call('GET', path, { host })
        // assess
        expect({ host, path, status: answer.status }).toEqual({ host, path, status: 421 })
        expect(answer.headers['content-type']).toBe('application/json')
        const { error } = JSON.parse(answer.body)
        expect(error.code).toBe('MisdirectedRequest')
        expect(error.message).toContain(`http://127.0.0.1:${port}/`)
        expect(answer.body).not.toContain(id)
      }
    }
  })

  it('refuses a cancel whose Origin and Host both name attacker.example (a rebound page), and the job stays', async () => {
    // prepare
    const id = await pendingJob('guard-cancel-1')
    const attacker = `attacker.example:${port}`
    // act
    const answer = await call('DELETE', `/api/jobs/${id}`, {
      host: attacker,
      origin: `http://${attacker}`,
      'content-type': 'application/json',
    })
    // assess: refused, still pending; the same cancel from the dashboard's own origin goes through
    expect(answer.status).toBe(421)
    expect(JSON.parse(answer.body).error.code).toBe('MisdirectedRequest')
    expect((await queue.get(id))?.status).toBe('scheduled')
    const own = `127.0.0.1:${port}`
    const mine = await call('DELETE', `/api/jobs/${id}`, {
      host: own,
      origin: `http://${own}`,
      'content-type': 'application/json',
    })
    expect(mine.status).toBe(204)
    expect(await queue.get(id)).toBeNull()
  })

  it('keeps refusing cross-origin actions (403), an unparsable Origin (a sandboxed frame sends "null") too', async () => {
    // prepare
    const id = await pendingJob('guard-cancel-2')
    const host = `localhost:${port}`
    for (const origin of ['http://evil.example', 'null', `https://${host}`, `http://127.0.0.1:${port}`]) {
      // act
      const answer = await call('DELETE', `/api/jobs/${id}`, { host, origin, 'content-type': 'application/json' })
      // assess
      expect({ origin, status: answer.status }).toEqual({ origin, status: 403 })
      expect(JSON.parse(answer.body).error.code).toBe('Forbidden')
    }
    expect((await queue.get(id))?.status).toBe('scheduled')
  })

  it('answers a job or schedule id with a malformed %-escape with a 400 naming the id', async () => {
    // prepare: the dashboard's own origin, so the action passes the guard and reaches the route
    const own = `127.0.0.1:${port}`
    const headers = { host: own, origin: `http://${own}`, 'content-type': 'application/json' }
    // act
    const answers = [
      await call('GET', '/api/jobs/%E0%A4%A', { host: own }),
      await call('DELETE', '/api/jobs/%E0%A4%A', headers),
      await call('POST', '/api/schedules/%E0%A4%A/pause', headers),
    ]
    // assess
    for (const answer of answers) {
      expect(answer.status).toBe(400)
      expect(JSON.parse(answer.body).error.details).toEqual([
        { path: 'id', message: 'is not a valid URL-encoded path segment' },
      ])
    }
  })

  it('answers a DLQ redrive whose queue name has a malformed %-escape with a 400 naming the queue', async () => {
    // prepare: the dashboard's own origin, so the action passes the guard and reaches the route
    const own = `127.0.0.1:${port}`
    const headers = { host: own, origin: `http://${own}`, 'content-type': 'application/json' }
    // act
    const answer = await call('POST', '/api/dlqs/%E0%A4%A/redrive', headers)
    // assess
    expect(answer.status).toBe(400)
    expect(JSON.parse(answer.body).error.details).toEqual([
      { path: 'queue', message: 'is not a valid URL-encoded path segment' },
    ])
  })

  it('tells browsers never to frame it, on the page and on every answer', async () => {
    for (const [path, host] of [
      ['/', `127.0.0.1:${port}`],
      ['/api/overview', `127.0.0.1:${port}`],
      ['/', 'attacker.example'],
    ] as const) {
      // act
      const answer = await call('GET', path, { host })
      // assess
      expect(answer.headers['content-security-policy']).toContain("frame-ancestors 'none'")
      expect(answer.headers['x-frame-options']).toBe('DENY')
    }
  })
})

describe.skipIf(!HAVE_CHROMIUM)('dashboard guard in a browser', () => {
  it('loads on 127.0.0.1 and on localhost', async () => {
    for (const base of [`http://127.0.0.1:${port}`, `http://localhost:${port}`]) {
      // act
      const page = await browser!.newPage()
      try {
        const answer = await page.goto(`${base}/`)
        // assess: the page and its first refresh (the queue table comes from /api/overview)
        expect({ base, status: answer?.status() }).toEqual({ base, status: 200 })
        await page.getByTestId('queues').waitFor({ state: 'visible', timeout: 10_000 })
        await page.locator('[data-queue="orders"]').waitFor({ state: 'visible', timeout: 10_000 })
      } finally {
        await page.close()
      }
    }
  }, 30_000)

  it("shows nothing of itself in a frame of another site's page", async () => {
    // prepare
    const page = await browser!.newPage()
    try {
      // act: a page of attacker.test frames http://127.0.0.1:<dashboard>/
      await page.goto(`http://attacker.test:${framerPort}/`)
      // assess: the frame's document is Chromium's error page, never the dashboard; the framing page stays
      const framed = await (await page.locator('#victim').elementHandle())!.contentFrame()
      await vi.waitFor(() => expect(framed!.url()).not.toBe(`http://127.0.0.1:${port}/`), { timeout: 10_000 })
      expect(framed!.url()).toMatch(/^chrome-error:/)
      expect(await framed!.locator('[data-testid="queues"], #app').count()).toBe(0)
      expect(await page.locator('h1').textContent()).toBe('another site')
    } finally {
      await page.close()
    }
  }, 30_000)

  it('refuses a page whose name was rebound to 127.0.0.1, and its same-origin cancel', async () => {
    // prepare
    const id = await pendingJob('guard-rebound-1')
    const page = await browser!.newPage()
    try {
      // act: the attacker's page at the dashboard's port, then its own fetch (same origin to the browser)
      const answer = await page.goto(`http://attacker.test:${port}/`)
      const cancel = await page.evaluate(
        async (path) =>
          (await fetch(path, { method: 'DELETE', headers: { 'content-type': 'application/json' } })).status,
        `/api/jobs/${id}`,
      )
      // assess
      expect(answer?.status()).toBe(421)
      expect(await page.locator('body').textContent()).toContain('MisdirectedRequest')
      expect(await page.getByTestId('queues').count()).toBe(0)
      expect(cancel).toBe(421)
      expect((await queue.get(id))?.status).toBe('scheduled')
    } finally {
      await page.close()
    }
  }, 30_000)
})
