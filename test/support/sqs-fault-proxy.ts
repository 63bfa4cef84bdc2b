// An HTTP proxy between a scanner and its SQS endpoint that injects the faults SQS can show, for the fault suite:
//   - refused entries: of each SendMessageBatch (JSON protocol, `x-amz-target: AmazonSQS.SendMessageBatch`) it drops
//     a share of the entries from the request and reports them under `Failed` in the answer, as SQS does for
//     entries it could not take (the others really reach the queue);
//   - outages: cut() refuses new connections and destroys open ones, requests in flight included, so an answer can
//     be lost after the endpoint already took the messages (the case that turns into a duplicate, never a loss);
//   - lost answers: dropAnswers(n) lets the next n SendMessageBatch calls reach the endpoint (their messages are
//     taken) and then resets the connection instead of answering: the sender cannot know they were accepted;
//   - stalled answers: stallAnswers(n) lets the next n SendMessageBatch calls reach the endpoint (their messages are
//     taken), sends the answer's headers and half its body, and then nothing more (the connection stays open);
//   - slow sends: setBatchDelay(ms) holds every SendMessageBatch that long before passing it on (a send in flight);
//   - refusals that are the sender's fault: setSenderFault(true) reports refused entries as SQS does for a message
//     it will never take (SenderFault true), instead of as a server-side error.
// Everything else passes through untouched. Loopback only.
import { sleep } from '../../devkit/sleep'
import {
  createServer,
  request as httpRequest,
  Agent,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http'
import type { Socket } from 'node:net'

export interface SqsFaultProxyOptions {
  /** The real endpoint, e.g. http://127.0.0.1:4566. */
  target: string
  /** Share of SendMessageBatch entries to refuse, 0..1. */
  refuseRate?: number
  /** Random source (tests can make it deterministic). */
  random?: () => number
}

export interface SqsFaultStats {
  requests: number
  /** SendMessageBatch calls with entries that arrived (a warm-up carries none), whatever became of them. */
  batchesArrived: number
  batches: number
  entriesForwarded: number
  entriesRefused: number
  /** Requests whose connection a cut destroyed before the answer went out. */
  requestsCut: number
  cuts: number
  /** SendMessageBatch calls the endpoint carried out whose answer was dropped (dropAnswers). */
  answersDropped: number
  /** SendMessageBatch calls the endpoint carried out whose answer stalled after its headers (stallAnswers). */
  answersStalled: number
}

export interface SqsFaultProxy {
  url: string
  port: number
  stats: SqsFaultStats
  setRefuseRate(rate: number): void
  /** Refused entries are the sender's fault (SenderFault true, never retried into success) or SQS's (false). */
  setSenderFault(senderFault: boolean): void
  /** Hold each SendMessageBatch this long before passing it on. */
  setBatchDelay(ms: number): void
  /** The next `count` SendMessageBatch calls are carried out, and their connection reset instead of answered. */
  dropAnswers(count: number): void
  /** The next `count` SendMessageBatch calls are carried out, and their answer stops after its headers. */
  stallAnswers(count: number): void
  cut(): Promise<void>
  restore(): Promise<void>
  /** Cut, wait `ms`, restore. */
  cutFor(ms: number): Promise<void>
  close(): Promise<void>
}

const BATCH_TARGET = 'AmazonSQS.SendMessageBatch'

interface BatchEntry {
  Id: string
}

export async function startSqsFaultProxy(options: SqsFaultProxyOptions): Promise<SqsFaultProxy> {
  const target = new URL(options.target)
  if (!['127.0.0.1', 'localhost', '[::1]'].includes(target.hostname))
    throw new Error('the fault proxy only talks to loopback')
  const random = options.random ?? Math.random
  let refuseRate = options.refuseRate ?? 0
  const upstreamAgent = new Agent({ keepAlive: true, maxSockets: 256 })
  const stats: SqsFaultStats = {
    requests: 0,
    batchesArrived: 0,
    batches: 0,
    entriesForwarded: 0,
    entriesRefused: 0,
    requestsCut: 0,
    cuts: 0,
    answersDropped: 0,
    answersStalled: 0,
  }
  let answersToDrop = 0
  let answersToStall = 0
  let senderFault = false
  let batchDelayMs = 0
  const sockets = new Set<Socket>()
  let server: Server | undefined
  let port = 0

  const forward = (
    req: IncomingMessage,
    body: Buffer,
  ): Promise<{ status: number; headers: IncomingMessage['headers']; body: Buffer }> =>
    new Promise((resolve, reject) => {
      const headers = { ...req.headers, host: target.host, 'content-length': String(body.length) }
      delete headers.connection
      const up = httpRequest(
        { host: target.hostname, port: target.port, method: req.method, path: req.url, headers, agent: upstreamAgent },
        (res) => {
          const chunks: Buffer[] = []
          res.on('data', (c: Buffer) => chunks.push(c))
          res.on('end', () =>
            resolve({ status: res.statusCode ?? 502, headers: res.headers, body: Buffer.concat(chunks) }),
          )
          res.on('error', reject)
        },
      )
      up.on('error', reject)
      up.end(body)
    })

  const answer = (res: ServerResponse, status: number, headers: IncomingMessage['headers'], body: Buffer) => {
    if (res.socket?.destroyed) {
      stats.requestsCut++
      return
    }
    const out: Record<string, string | string[]> = {}
    for (const [k, v] of Object.entries(headers)) {
      if (v !== undefined && !['content-length', 'transfer-encoding', 'connection'].includes(k)) out[k] = v
    }
    out['content-length'] = String(body.length)
    res.writeHead(status, out)
    res.end(body)
  }

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    stats.requests++
    const chunks: Buffer[] = []
    for await (const c of req) chunks.push(c as Buffer)
    let body: Buffer = Buffer.concat(chunks)
    const refused: BatchEntry[] = []
    const failure = (e: BatchEntry) => refusal(e, senderFault)
    const delayMs = req.headers['x-amz-target'] === BATCH_TARGET ? batchDelayMs : 0
    if (req.headers['x-amz-target'] === BATCH_TARGET) {
      const entries = (JSON.parse(body.toString('utf8') || '{}') as { Entries?: unknown[] }).Entries ?? []
      if (entries.length > 0) stats.batchesArrived++
    }
    if (req.headers['x-amz-target'] === BATCH_TARGET && refuseRate > 0) {
      const parsed = JSON.parse(body.toString('utf8')) as { Entries?: BatchEntry[] }
      const entries = parsed.Entries ?? []
      stats.batches++
      const kept: BatchEntry[] = []
      for (const e of entries) (random() < refuseRate ? refused : kept).push(e)
      stats.entriesRefused += refused.length
      stats.entriesForwarded += kept.length
      // Decided on arrival, answered after the delay: a send in flight keeps the fate it met.
      if (delayMs > 0) await sleep(delayMs)
      if (kept.length === 0) {
        // SQS refuses an empty batch: answer for it ourselves.
        const failed = refused.map(failure)
        answer(
          res,
          200,
          { 'content-type': 'application/x-amz-json-1.0' },
          Buffer.from(JSON.stringify({ Successful: [], Failed: failed })),
        )
        return
      }
      body = Buffer.from(JSON.stringify({ ...parsed, Entries: kept }))
    } else if (delayMs > 0) await sleep(delayMs)
    const up = await forward(req, body)
    if (req.headers['x-amz-target'] === BATCH_TARGET && answersToDrop > 0) {
      answersToDrop--
      stats.answersDropped++
      res.socket?.destroy()
      return
    }
    if (req.headers['x-amz-target'] === BATCH_TARGET && answersToStall > 0 && up.status === 200) {
      answersToStall--
      stats.answersStalled++
      // The full length announced, half of it sent: the reader waits for the rest until the socket goes (cut, close).
      res.writeHead(200, { 'content-type': 'application/x-amz-json-1.0', 'content-length': String(up.body.length) })
      res.write(up.body.subarray(0, Math.floor(up.body.length / 2)))
      return
    }
    if (refused.length && up.status === 200) {
      const result = JSON.parse(up.body.toString('utf8')) as { Successful?: unknown[]; Failed?: unknown[] }
      result.Failed = [...(result.Failed ?? []), ...refused.map(failure)]
      answer(res, 200, up.headers, Buffer.from(JSON.stringify(result)))
    } else {
      answer(res, up.status, up.headers, up.body)
    }
  }

  const listen = () =>
    new Promise<void>((resolve, reject) => {
      const s = createServer((req, res) => {
        handle(req, res).catch(() => {
          if (!res.headersSent && !res.socket?.destroyed) {
            res.writeHead(502, { 'content-type': 'text/plain' })
            res.end('fault proxy: upstream failed')
          } else stats.requestsCut++
        })
      })
      s.keepAliveTimeout = 5_000
      s.on('connection', (sock) => {
        sockets.add(sock)
        sock.on('close', () => sockets.delete(sock))
      })
      s.once('error', reject)
      s.listen(port, '127.0.0.1', () => {
        port = (s.address() as { port: number }).port
        server = s
        resolve()
      })
    })

  const cut = () =>
    new Promise<void>((resolve) => {
      if (!server) return resolve()
      const s = server
      server = undefined
      s.close(() => resolve())
      for (const sock of sockets) sock.destroy()
      sockets.clear()
    })

  await listen()
  return {
    get url() {
      return `http://127.0.0.1:${port}`
    },
    get port() {
      return port
    },
    stats,
    setRefuseRate: (rate) => {
      refuseRate = rate
    },
    setSenderFault: (fault) => {
      senderFault = fault
    },
    setBatchDelay: (ms) => {
      batchDelayMs = ms
    },
    dropAnswers: (count) => {
      answersToDrop = count
    },
    stallAnswers: (count) => {
      answersToStall = count
    },
    cut: () => {
      stats.cuts++
      return cut()
    },
    restore: async () => {
      if (!server) await listen()
    },
    async cutFor(ms) {
      stats.cuts++
      await cut()
      await sleep(ms)
      if (!server) await listen()
    },
    async close() {
      await cut()
      upstreamAgent.destroy()
    },
  }
}

function refusal(e: BatchEntry, senderFault: boolean) {
  return senderFault
    ? { Id: e.Id, SenderFault: true, Code: 'InvalidParameterValue', Message: 'injected by the fault proxy' }
    : { Id: e.Id, SenderFault: false, Code: 'InternalError', Message: 'injected by the fault proxy' }
}
