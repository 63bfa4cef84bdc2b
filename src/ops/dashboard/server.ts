// The operator dashboard: a small HTTP server over one Redis (any REDIS_URL; it never calls AWS) that serves the page
// and the JSON it polls. `npm run dev` starts one beside the stack; `npm run sdq -- dashboard` starts one alone.
// Bound to loopback by default and unauthenticated: reach a deployed Redis through a tunnel. Another bind address only
// with a token that every request must carry (./token-guard.ts).
// It answers only requests addressed to its own loopback names (DNS rebinding), cannot be framed (clickjacking), and
// actions need a JSON content type and a same-origin request, so a page on another site cannot trigger them
// (./request-guard.ts).
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { DelayQueue } from '../../direct/delay-queue'
import { validateJobRef, validateScheduleId } from '../../direct/id-rules'
import { DelayQueueError, JobNotFoundError, ValidationError } from '../../errors'
import type { Engine } from '../../store/engine'
import { DeadSet } from '../dead-set'
import { buildBrowserBundle } from './browser-bundle'
import { OverviewReader } from './overview'
import { taggedPage, tagRoutes } from './tag-routes'
import { DlqReader } from './dlqs'
import { PAGE_HTML } from './page'
import { checkAction, checkHost, HttpError, loopbackHosts } from './request-guard'
import { type Handler, idIn } from './request-parts'
import { runRoutes } from './run-routes'
import { checkBind, TokenGuard } from './token-guard'
import { isoTime } from '../../shared/iso-time'

export interface DashboardOptions {
  port?: number
  /** Default 127.0.0.1; any other address only with a `token` (./token-guard.ts). */
  host?: string
  /** Every request must carry it (SDQ_DASHBOARD_TOKEN): required beyond loopback, at least 32 characters. */
  token?: string
}

export interface Dashboard {
  url: string
  close(): Promise<void>
}

// ConfigError: this Redis holds another deployment's key layout (the message names the setting to fix).
const STATUS: Record<string, number> = {
  ValidationError: 400,
  PayloadTooLarge: 413,
  NotFound: 404,
  Conflict: 409,
  ConfigError: 500,
  ServiceUnavailable: 503,
}

export async function startDashboard(engine: Engine, options: DashboardOptions = {}): Promise<Dashboard> {
  const host = options.host ?? '127.0.0.1'
  checkBind(host, options.token)
  const tokens = options.token === undefined ? undefined : new TokenGuard(options.token)
  const client = await buildBrowserBundle()
  const dlqs = new DlqReader(engine.config, engine.store)
  const routes = [...apiRoutes(engine), ...dlqRoutes(dlqs)]
  // Set once listening (the port may be a free one).
  let ownHosts = new Set<string>()
  const server = createServer((req, res) => {
    void handle(req, res).catch((e) => sendError(res, e))
  })
  async function handle(req: IncomingMessage, res: ServerResponse) {
    // With a token, the token decides (a rebound name's page has no cookie for it); without, our loopback names.
    if (tokens) {
      if (tokens.login(req, res)) return
      tokens.check(req)
    } else checkHost(req, ownHosts)
    const path = new URL(req.url ?? '/', 'http://dashboard').pathname
    if (req.method === 'GET' && path === '/') return send(res, 200, PAGE_HTML, 'text/html; charset=utf-8')
    if (req.method === 'GET' && path === '/app.js') return send(res, 200, client.js, 'text/javascript; charset=utf-8')
    if (req.method === 'GET' && path === '/app.css') return send(res, 200, client.css, 'text/css; charset=utf-8')
    for (const [method, pattern, handler] of routes) {
      const match = path.match(pattern)
      if (!match || method !== req.method) continue
      if (method !== 'GET') checkAction(req, tokens?.bearer(req))
      const [status, body] = await handler(req, match)
      return body === undefined ? send(res, status) : send(res, status, JSON.stringify(body), 'application/json')
    }
    throw new HttpError(404, `no route ${req.method} ${path}`)
  }

  await new Promise<void>((ok, fail) => {
    server.once('error', fail)
    server.listen(options.port ?? 0, host, () => ok())
  })
  const { address, port } = server.address() as AddressInfo
  ownHosts = loopbackHosts(port)
  return {
    url: `http://${address.includes(':') ? `[${address}]` : address}:${port}`,
    close: () =>
      new Promise<void>((ok) => {
        dlqs.close()
        server.close(() => ok())
        server.closeAllConnections()
      }),
  }
}

/**
 * GET /api/pending?queue=&cursor=&limit=: a page of pending jobs in due order (src/store/pending-page.ts); with tag=,
 * the jobs with that tag (./tag-routes.ts).
 */
function pendingRoute(queue: DelayQueue): [string, RegExp, Handler] {
  return [
    'GET',
    /^\/api\/pending$/,
    async (req) => {
      const query = new URL(req.url ?? '/', 'http://dashboard').searchParams
      if (query.get('tag')) return [200, await taggedPage(queue, req)]
      const options = {
        queue: query.get('queue') || undefined,
        limit: Number(query.get('limit') ?? '20'),
        cursor: query.get('cursor') || null,
      }
      return [200, await queue.listPending(options)]
    },
  ]
}

/** Pause, resume and delete a recurring schedule: what `sdq schedules pause|resume|delete` do. */
function scheduleRoutes(queue: DelayQueue): [string, RegExp, Handler][] {
  const id = (m: RegExpMatchArray) => idIn(m, validateScheduleId)
  return [
    ['POST', /^\/api\/schedules\/([^/]+)\/pause$/, async (_req, m) => [200, await queue.pauseSchedule(id(m), true)]],
    ['POST', /^\/api\/schedules\/([^/]+)\/resume$/, async (_req, m) => [200, await queue.pauseSchedule(id(m), false)]],
    [
      'DELETE',
      /^\/api\/schedules\/([^/]+)$/,
      async (_req, m) => {
        await queue.deleteSchedule(id(m))
        return [204]
      },
    ],
  ]
}

/**
 * The consumer side: each target's DLQ, its depth (GET: attributes only, no side effect), a peek at its messages (POST:
 * a receive is an action) and its redrive into the delay queue (src/ops/dashboard/dlqs.ts).
 */
function dlqRoutes(dlqs: DlqReader): [string, RegExp, Handler][] {
  return [
    ['GET', /^\/api\/dlqs$/, async () => [200, await dlqs.read()]],
    ['POST', /^\/api\/dlqs\/peek$/, async () => [200, await dlqs.peek()]],
    [
      'POST',
      /^\/api\/dlqs\/([^/]+)\/redrive$/,
      async (_req, m) => [200, await dlqs.redrive(idIn(m, (name) => name, 'queue'))],
    ],
  ]
}

/** The JSON API the page calls: [method, path pattern, handler]. */
function apiRoutes(engine: Engine): [string, RegExp, Handler][] {
  const queue = new DelayQueue(engine)
  const dead = new DeadSet(engine.redis, engine.keys)
  const overview = new OverviewReader(engine.redis, engine.keys, engine.store, Object.keys(engine.config.queues))
  const id = (m: RegExpMatchArray) => idIn(m, validateJobRef)

  return [
    ['GET', /^\/api\/overview$/, async () => [200, await overview.read()]],
    pendingRoute(queue),
    ...tagRoutes(queue, engine),
    ...scheduleRoutes(queue),
    ...runRoutes(queue, engine.store),
    [
      'GET',
      /^\/api\/jobs\/([^/]+)$/,
      async (_req, m) => {
        const job = await queue.get(id(m))
        if (!job) throw new JobNotFoundError(id(m))
        return [200, job]
      },
    ],
    [
      'DELETE',
      /^\/api\/jobs\/([^/]+)$/,
      async (_req, m) => {
        await queue.cancel(id(m))
        return [204]
      },
    ],
    [
      'POST',
      /^\/api\/dead\/([^/]+)\/retry$/,
      async (_req, m) => [200, { id: id(m), runAt: isoTime(await dead.revive(id(m))) }],
    ],
    [
      'DELETE',
      /^\/api\/dead\/([^/]+)$/,
      async (_req, m) => {
        await queue.cancel(id(m))
        return [204]
      },
    ],
  ]
}

function send(res: ServerResponse, status: number, body?: string, type?: string) {
  res.writeHead(status, {
    ...(type ? { 'content-type': type } : {}),
    'cache-control': 'no-store',
    'x-content-type-options': 'nosniff',
    // Only our own script and style (no inline script or style attribute): injected markup could not run anything.
    // No page may frame it (frame-ancestors; X-Frame-Options for browsers without CSP 2): a framed dashboard under a
    // page's own content could be clicked on unseen.
    'content-security-policy':
      "default-src 'self'; img-src 'self' data:; object-src 'none'; base-uri 'none'; frame-ancestors 'none'",
    'x-frame-options': 'DENY',
  })
  res.end(body)
}

function sendError(res: ServerResponse, e: unknown) {
  const [status, code, message] =
    e instanceof HttpError
      ? [e.status, e.code, e.message]
      : e instanceof DelayQueueError && e.code in STATUS
        ? [STATUS[e.code]!, e.code, e.message]
        : [500, 'InternalError', 'internal error']
  if (status === 500) console.error('[dashboard]', e)
  const details = e instanceof ValidationError ? { details: e.details } : {}
  if (!res.headersSent) send(res, status, JSON.stringify({ error: { code, message, ...details } }), 'application/json')
  else res.end()
}
