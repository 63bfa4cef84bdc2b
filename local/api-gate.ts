// A loopback HTTP gate in front of serverless-offline's API port. serverless-offline runs every request in a worker
// thread of its own: 1,000 PUTs and 1,000 DELETEs sent at once made it create threads until it died (EAGAIN, heap out
// of memory). The gate lets `maxInFlight` requests through at a time and queues the rest, as API Gateway's
// concurrency would; past `maxQueued` waiting, it answers 503 with our error body and `retry-after: 1` (the clients
// retry 503s), never a dead stack. The slots open one per answer, from 2 (local/ramping-slots.ts), so a burst on a
// cold stack does not start 16 workers at once. A failed invocation, which serverless-offline answers 200, is
// answered as the failure it is (local/lambda-error-answer.ts).
// Web pages: the gate answers only loopback Hosts and callers without an Origin, of its own origin or of one allowed
// with SDQ_LOCAL_ALLOWED_ORIGINS (local/loopback-guard.mjs); the CORS headers are its own, only for an allowed origin
// (as API Gateway sends none unless configured), never serverless-offline's copy of whatever Origin came.
import {
  createServer,
  request as httpRequest,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http'
import type { AddressInfo } from 'node:net'
import { failedInvocation } from './lambda-error-answer'
import { answerRefusal, refusal } from './loopback-guard.mjs'
import { RampingSlots } from './ramping-slots'

export interface ApiGateOptions {
  /** serverless-offline's API, e.g. http://127.0.0.1:3001. */
  target: string
  /** The gate's own port (0: a free one). */
  port?: number
  maxInFlight?: number
  /** Slots open at first; one more opens with each answer, up to maxInFlight. */
  initialInFlight?: number
  maxQueued?: number
  /** Origins whose pages may call the API from a browser (SDQ_LOCAL_ALLOWED_ORIGINS). Default: none. */
  allowedOrigins?: string[]
}

/** What a browser may send to an allowed origin's API (the routes of docs/api.md). */
const PREFLIGHT = {
  'access-control-allow-methods': 'GET, POST, PUT, DELETE',
  'access-control-allow-headers': 'content-type, idempotency-key, authorization',
  'access-control-max-age': '600',
}

/** Headers that are the browser's business only: the upstream never sees them (it would echo Origin into CORS). */
const BROWSER_HEADERS = ['origin', 'referer', 'sec-fetch-site', 'sec-fetch-mode', 'sec-fetch-dest', 'sec-fetch-user']

const withoutCors = (headers: IncomingHttpHeaders) =>
  Object.fromEntries(Object.entries(headers).filter(([name]) => !name.startsWith('access-control-')))

export interface ApiGate {
  url: string
  /** Requests waiting for a slot now, and the most that ever waited. */
  stats: { waiting: number; mostWaiting: number; refused: number }
  close(): Promise<void>
}

export async function startApiGate(options: ApiGateOptions): Promise<ApiGate> {
  const target = new URL(options.target)
  const slots = new RampingSlots(options.initialInFlight ?? 2, options.maxInFlight ?? 16)
  const maxQueued = options.maxQueued ?? 10_000
  const stats = { waiting: 0, mostWaiting: 0, refused: 0 }
  const allowedOrigins = options.allowedOrigins ?? []
  let port = 0

  const forward = (req: IncomingMessage, res: ServerResponse, body: Buffer, cors: Record<string, string>) =>
    new Promise<boolean>((done) => {
      const headers: IncomingHttpHeaders = { ...req.headers, host: target.host, 'content-length': String(body.length) }
      for (const name of BROWSER_HEADERS) delete headers[name]
      const up = httpRequest(
        { host: target.hostname, port: target.port, method: req.method, path: req.url, headers },
        (answer) => {
          // Read whole (API answers are small) to tell serverless-offline's failed invocation from an answer.
          const chunks: Buffer[] = []
          answer.on('data', (chunk: Buffer) => chunks.push(chunk))
          answer.on('end', () => {
            const body = Buffer.concat(chunks)
            const failed = failedInvocation(answer.statusCode ?? 502, body)
            if (failed) {
              res.writeHead(failed.status, { 'content-type': 'application/json', ...cors })
              res.end(failed.body)
            } else {
              res.writeHead(answer.statusCode ?? 502, { ...withoutCors(answer.headers), ...cors })
              res.end(body)
            }
            done(true)
          })
          answer.on('error', () => {
            if (!res.headersSent) res.writeHead(502, { 'content-type': 'application/json' })
            res.end(JSON.stringify({ error: { code: 'InternalError', message: 'the local API broke off its answer' } }))
            done(false)
          })
        },
      )
      up.on('error', () => {
        if (!res.headersSent) res.writeHead(502, { 'content-type': 'application/json' })
        res.end(JSON.stringify({ error: { code: 'InternalError', message: 'the local API is not answering' } }))
        done(false)
      })
      up.end(body)
    })

  const server: Server = createServer(async (req, res) => {
    const refused = refusal(req, port, allowedOrigins)
    if (refused) return answerRefusal(res, refused)
    // Past the guard, an Origin is this gate's own or an allowed one: only an allowed one gets CORS headers.
    const origin = req.headers.origin
    const cors: Record<string, string> =
      origin && allowedOrigins.includes(origin) ? { 'access-control-allow-origin': origin, vary: 'origin' } : {}
    if (req.method === 'OPTIONS' && cors['access-control-allow-origin']) {
      res.writeHead(204, { ...cors, ...PREFLIGHT })
      return res.end()
    }
    const chunks: Buffer[] = []
    for await (const chunk of req) chunks.push(chunk as Buffer)
    if (stats.waiting >= maxQueued) {
      stats.refused++
      res.writeHead(503, { 'content-type': 'application/json', 'retry-after': '1' })
      res.end(JSON.stringify({ error: { code: 'ServiceUnavailable', message: 'the local API is saturated' } }))
      return
    }
    stats.waiting++
    stats.mostWaiting = Math.max(stats.mostWaiting, stats.waiting)
    await slots.acquire()
    stats.waiting--
    let answered = false
    try {
      answered = await forward(req, res, Buffer.concat(chunks), cors)
    } finally {
      slots.release(answered)
    }
  })
  await new Promise<void>((ok) => server.listen(options.port ?? 0, '127.0.0.1', ok))
  port = (server.address() as AddressInfo).port
  return {
    url: `http://127.0.0.1:${port}`,
    stats,
    close: () =>
      new Promise<void>((ok) => {
        server.close(() => ok())
        server.closeAllConnections()
      }),
  }
}
