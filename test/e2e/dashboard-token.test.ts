// The operator dashboard bound beyond loopback: refused without SDQ_DASHBOARD_TOKEN (startDashboard and `sdq
// dashboard --host`), and with one, every request from another address needs it, and an action sent with the cookie
// needs the page's Origin. "Another address" is this machine's end of a link to a second host (test/support/
// foreign-host.ts): local, not loopback; a request sent to it comes from it, as one from the network would.
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { request } from 'node:http'
import { resolve } from 'node:path'
import { afterAll, beforeAll, describe, expect, inject, it, onTestFinished } from 'vitest'
import { loadConfig } from '../../src/config'
import { DelayQueue } from '../../src/direct/delay-queue'
import { startDashboard, type Dashboard } from '../../src/ops/dashboard/server'
import { createEngine, type Engine } from '../../src/store/engine'
import { uniquePrefix } from '../support/engine'
import { foreignHostForFile } from '../support/foreign-host'

const other = foreignHostForFile()
const TOKEN = 'b7c1f0e2a9d84c6e8f3a1b2c4d5e6f70a1b2c3d4'
const prefix = uniquePrefix('token')
let engine: Engine
let queue: DelayQueue

beforeAll(() => {
  engine = createEngine(
    loadConfig({ REDIS_URL: inject('redisUrl'), QUEUES: 'orders=http://127.0.0.1:9/orders', KEY_PREFIX: prefix }),
  )
  queue = new DelayQueue(engine)
})
afterAll(async () => {
  await engine?.close()
})

/** startDashboard's outcome: the error it refused with, or the dashboard (closed after the test). */
async function tryStart(options: Parameters<typeof startDashboard>[1]): Promise<Error | Dashboard> {
  const started = await startDashboard(engine, options).catch((e: Error) => e)
  if (!(started instanceof Error)) onTestFinished(() => started.close())
  return started
}

/** A request to `address`:`port` with the headers given as they are, Host included. */
function call(address: string, port: number, method: string, path: string, headers: Record<string, string>) {
  return new Promise<{ status: number; headers: Record<string, unknown>; body: string }>((ok, fail) => {
    const req = request({ host: address, port, method, path, headers, setHost: false }, (res) => {
      let body = ''
      res.on('data', (c) => (body += c))
      res.on('end', () => ok({ status: res.statusCode!, headers: res.headers, body }))
    })
    req.once('error', fail)
    req.end()
  })
}

const secretJob = async (id: string) =>
  (await queue.schedule({ id, queue: 'orders', payload: { otp: '4711' }, delayMs: 3_600_000 })).id

describe('dashboard beyond loopback', () => {
  it('refuses to bind another address without a token, naming SDQ_DASHBOARD_TOKEN', async (ctx) => {
    // prepare
    const { hostAddress } = other.host(ctx)
    for (const host of ['0.0.0.0', hostAddress]) {
      // act
      const started = await tryStart({ host })
      // assess
      expect(started).toBeInstanceOf(Error)
      expect((started as Error).message).toContain('SDQ_DASHBOARD_TOKEN')
    }
    // and a token too short to be one
    expect(((await tryStart({ host: hostAddress, token: 'short' })) as Error).message).toMatch(/at least 32/)
  })

  it('`sdq dashboard --host` beyond loopback exits with the reason instead of serving', async (ctx) => {
    // prepare
    const { hostAddress } = other.host(ctx)
    const env = { PATH: process.env.PATH, REDIS_URL: inject('redisUrl'), QUEUES: 'orders=http://127.0.0.1:9/orders' }
    // act
    const cli = spawn(
      process.execPath,
      ['scripts/run-ts.mjs', 'src/ops/sdq.ts', 'dashboard', '--host', hostAddress, '--port', '0'],
      { cwd: resolve(__dirname, '../..'), env, stdio: ['ignore', 'pipe', 'pipe'] },
    )
    onTestFinished(async () => {
      if (cli.exitCode === null && cli.signalCode === null) {
        cli.kill('SIGKILL')
        await once(cli, 'exit')
      }
    })
    let output = ''
    for (const stream of [cli.stdout!, cli.stderr!]) stream.on('data', (c) => (output += c))
    const exited = once(cli, 'exit')
    // assess: it ends on its own, non-zero, saying why; it never printed an address it serves on
    // (it bundles and starts first: on a loaded machine that takes seconds, bounded by the case's own timeout)
    const [code] = await exited
    expect(code).not.toBe(0)
    expect(output).toContain('SDQ_DASHBOARD_TOKEN')
    expect(output).not.toContain('dashboard on')
  }, 60_000)

  it('with a token, answers another address only with it: 401 without, the cookie from /?token= or a bearer', async (ctx) => {
    // prepare
    const { hostAddress } = other.host(ctx)
    const id = await secretJob('token-read-1')
    const dashboard = (await tryStart({ host: hostAddress, token: TOKEN })) as Dashboard
    const port = Number(new URL(dashboard.url).port)
    const get = (headers: Record<string, string>) => call(hostAddress, port, 'GET', `/api/jobs/${id}`, headers)
    // act
    const anonymous = await get({ host: `127.0.0.1:${port}` })
    const wrong = await get({ host: `127.0.0.1:${port}`, authorization: `Bearer ${TOKEN.slice(1)}x` })
    const login = await call(hostAddress, port, 'GET', `/?token=${TOKEN}`, { host: `${hostAddress}:${port}` })
    const cookie = String((login.headers['set-cookie'] as string[])[0]).split(';')[0]!
    const withCookie = await get({ host: `${hostAddress}:${port}`, cookie })
    const withBearer = await get({ host: `${hostAddress}:${port}`, authorization: `Bearer ${TOKEN}` })
    // assess
    for (const refused of [anonymous, wrong]) {
      expect(refused.status).toBe(401)
      expect(JSON.parse(refused.body).error.code).toBe('Unauthorized')
      expect(refused.body).not.toContain('4711')
    }
    expect(login.status).toBe(303)
    expect(login.headers.location).toBe('/')
    expect(login.headers['set-cookie']).toEqual([expect.stringMatching(/HttpOnly; SameSite=Strict/)])
    expect(withCookie.status).toBe(200)
    expect(JSON.parse(withCookie.body).payload).toEqual({ otp: '4711' })
    expect(withBearer.status).toBe(200)
  })

  it('with a token, refuses an action from another address sent with the cookie but no Origin; the page’s own passes', async (ctx) => {
    // prepare
    const { hostAddress } = other.host(ctx)
    const id = await secretJob('token-cancel-1')
    const dashboard = (await tryStart({ host: hostAddress, token: TOKEN })) as Dashboard
    const port = Number(new URL(dashboard.url).port)
    const own = `${hostAddress}:${port}`
    const cookie = `sdq_dashboard=${TOKEN}`
    const cancel = (headers: Record<string, string>) =>
      call(hostAddress, port, 'DELETE', `/api/jobs/${id}`, {
        host: own,
        'content-type': 'application/json',
        ...headers,
      })
    // act / assess: no Origin, cookie only: refused, the job stays
    const noOrigin = await cancel({ cookie })
    expect(noOrigin.status).toBe(403)
    expect(JSON.parse(noOrigin.body).error.message).toContain('Origin')
    expect((await queue.get(id))?.status).toBe('scheduled')
    // act / assess: the page's own request (its Origin) goes through
    expect((await cancel({ cookie, origin: `http://${own}` })).status).toBe(204)
    expect(await queue.get(id)).toBeNull()
  })

  it('with a token, takes a script’s action with the bearer and no Origin', async (ctx) => {
    // prepare
    const { hostAddress } = other.host(ctx)
    const id = await secretJob('token-cancel-2')
    const dashboard = (await tryStart({ host: hostAddress, token: TOKEN })) as Dashboard
    const port = Number(new URL(dashboard.url).port)
    // act
    const answer = await call(hostAddress, port, 'DELETE', `/api/jobs/${id}`, {
      host: `${hostAddress}:${port}`,
      'content-type': 'application/json',
      authorization: `Bearer ${TOKEN}`,
    })
    // assess
    expect(answer.status).toBe(204)
    expect(await queue.get(id)).toBeNull()
  })
})
