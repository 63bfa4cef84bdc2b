// One HTTP call of a delivery: to the address the guard allowed (pinned), within a connect and a total time, never
// following a redirect, reading at most a bounded part of the answer.
import * as http from 'node:http'
import * as https from 'node:https'
import { isIP } from 'node:net'
import type { AddressVerdict } from './address-policy'
import { AddressRefusedError, DeliveryTimeoutError } from './errors'
import { pinnedLookup, type Resolver } from './pinned-lookup'

/** What the delivery record keeps of an answer's body. */
export const EXCERPT_BYTES = 512
/** Read at most this much of an answer (then the socket is dropped): a receiver cannot fill the Lambda's memory. */
const MAX_READ_BYTES = 64 * 1024

export interface OutgoingRequest {
  url: URL
  method: string
  headers: Record<string, string>
  body?: Buffer
}

export interface SendLimits {
  connectTimeoutMs: number
  totalTimeoutMs: number
}

export interface HttpAnswer {
  status: number
  headers: http.IncomingHttpHeaders
  /** The first EXCERPT_BYTES of the body, as UTF-8 text. */
  excerpt: string
}

export interface Sender {
  send(request: OutgoingRequest, limits: SendLimits): Promise<HttpAnswer>
  /** Drops the kept-alive sockets (tests, shutdown). */
  close(): void
}

export function createSender(resolve: Resolver, judge: (address: string) => AddressVerdict): Sender {
  const lookup = pinnedLookup(resolve, judge)
  // Keep-alive: a pooled socket was connected to an address judged when it was made.
  const agents = {
    'http:': new http.Agent({ keepAlive: true, lookup, maxSockets: 64 }),
    'https:': new https.Agent({ keepAlive: true, lookup, maxSockets: 64 }),
  }
  return {
    send: (request, limits) => {
      const host = request.url.hostname.replace(/^\[|\]$/g, '')
      // A literal address never goes through lookup: judged here.
      if (isIP(host)) {
        const verdict = judge(host)
        if (!verdict.allowed) return Promise.reject(new AddressRefusedError(host, verdict.reason))
      }
      const agent = agents[request.url.protocol as 'http:' | 'https:']
      if (!agent) return Promise.reject(new AddressRefusedError(host, `scheme ${request.url.protocol} is not http(s)`))
      return call(request, limits, agent)
    },
    close: () => {
      agents['http:'].destroy()
      agents['https:'].destroy()
    },
  }
}

/**
 * Runs a timeout's decision after the I/O that is already waiting: when the event loop was stalled (a cold start, a
 * small Lambda's share of a CPU), timers run before the sockets are read, and an answer that came in time would be
 * taken for a timeout, and the job called again. Each decision looks again whether it still applies.
 */
const lastLook = (decide: () => void) => () => void setImmediate(decide)

function call(request: OutgoingRequest, limits: SendLimits, agent: http.Agent): Promise<HttpAnswer> {
  const lib = request.url.protocol === 'https:' ? https : http
  return new Promise<HttpAnswer>((resolve, reject) => {
    let settled = false
    const finish = (error: Error | null, answer?: HttpAnswer) => {
      if (settled) return
      settled = true
      clearTimeout(total)
      clearTimeout(connect)
      if (error) {
        req.destroy()
        reject(error)
      } else resolve(answer!)
    }
    // Once the status came, the receiver has answered: a body that never ends, or breaks off, does not turn a 200 into
    // a retry (and a second delivery). The socket is dropped, its body unread.
    let answered: (() => HttpAnswer) | undefined
    const failed = (e: Error) => (answered ? finish(null, answered()) : finish(e))
    const total = setTimeout(
      lastLook(() => {
        if (settled) return
        if (!answered) return finish(new DeliveryTimeoutError('total', limits.totalTimeoutMs))
        finish(null, answered())
        req.destroy()
      }),
      limits.totalTimeoutMs,
    )
    let connect: NodeJS.Timeout | undefined
    const headers = { ...request.headers, ...(request.body ? { 'content-length': String(request.body.length) } : {}) }
    const req = lib.request(request.url, { method: request.method, headers, agent }, (res) => {
      const chunks: Buffer[] = []
      let read = 0
      res.on('data', (chunk: Buffer) => {
        // Only the excerpt is kept; the rest is read (up to the bound) so the socket can serve the next call.
        if (read < EXCERPT_BYTES) chunks.push(chunk)
        read += chunk.length
        if (read >= MAX_READ_BYTES) {
          res.destroy()
          done()
        }
      })
      answered = () => ({
        status: res.statusCode ?? 0,
        headers: res.headers,
        excerpt: Buffer.concat(chunks).subarray(0, EXCERPT_BYTES).toString('utf8'),
      })
      const done = () => finish(null, answered!())
      res.on('end', done)
      res.on('error', failed)
    })
    req.on('socket', (socket) => {
      // A reused keep-alive socket is connected already.
      if (socket.connecting) {
        connect = setTimeout(
          lastLook(() => socket.connecting && finish(new DeliveryTimeoutError('connect', limits.connectTimeoutMs))),
          limits.connectTimeoutMs,
        )
        socket.once('connect', () => clearTimeout(connect))
      }
    })
    req.on('error', failed)
    req.end(request.body)
  })
}
