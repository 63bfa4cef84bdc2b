// A loopback HTTP gate in front of serverless-offline's API port. serverless-offline runs every request in a worker
// thread of its own: 1,000 PUTs and 1,000 DELETEs sent at once made it create threads until it died (EAGAIN, heap out
// of memory). The gate lets `maxInFlight` requests through at a time and queues the rest, as API Gateway's
// concurrency would; past `maxQueued` waiting, it answers 503 with our error body and `retry-after: 1` (the clients
// retry 503s), never a dead stack. The slots open one per answer, from 2 (local/ramping-slots.ts), so a burst on a
// cold stack does not start 16 workers at once. A failed invocation, which serverless-offline answers 200, is
// answered as the failure it is (local/lambda-error-answer.ts).
import { createServer, request as httpRequest, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { failedInvocation } from './lambda-error-answer'
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
}

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

  const forward = (req: IncomingMessage, res: ServerResponse, body: Buffer) =>
    new Promise<boolean>((done) => {
      const up = httpRequest(
        {
          host: target.hostname,
          port: target.port,
          method: req.method,
          path: req.url,
          headers: { ...req.headers, host: target.host, 'content-length': String(body.length) },
        },
        (answer) => {
          // Read whole (API answers are small) to tell serverless-offline's failed invocation from an answer.
          const chunks: Buffer[] = []
          answer.on('data', (chunk: Buffer) => chunks.push(chunk))
          answer.on('end', () => {
            const body = Buffer.concat(chunks)
            const failed = failedInvocation(answer.statusCode ?? 502, body)
            if (failed) {
              res.writeHead(failed.status, { 'content-type': 'application/json' })
              res.end(failed.body)
            } else {
              res.writeHead(answer.statusCode ?? 502, answer.headers)
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
      answered = await forward(req, res, Buffer.concat(chunks))
    } finally {
      slots.release(answered)
    }
  })
  await new Promise<void>((ok) => server.listen(options.port ?? 0, '127.0.0.1', ok))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    stats,
    close: () =>
      new Promise<void>((ok) => {
        server.close(() => ok())
        server.closeAllConnections()
      }),
  }
}
