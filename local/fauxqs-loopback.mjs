// fauxqs bound to 127.0.0.1 only. fauxqs 2.x listens on every address: its dist/app.js calls
// `app.listen({ port, host: "0.0.0.0" })` with the host hard-coded (its `host` option and FAUXQS_HOST only name the
// host in queue URLs), and it accepts any credentials, so anyone who can reach this machine could list, read and
// send to the local queues and DLQs.
//
// How: while fauxqs starts, net.Server.prototype.listen (which Fastify's http.Server uses) turns a wildcard or any
// other non-loopback host into 127.0.0.1, so its socket is never bound anywhere else, not even for a moment. Chosen
// over a loopback proxy in front of it (fauxqs's own port would stay open to the network) and over rewriting
// fauxqs's source at load time (tied to one line of one build). Kept robust by the check after the start: the address
// fauxqs reports (the socket's own, from server.address()) must be 127.0.0.1, or the server is stopped and the start
// fails. An upstream change that needs none of this: a listen-address option in startFauxqs (e.g. `listenHost`,
// FAUXQS_LISTEN_HOST) passed to app.listen.
// Its HTTP server also answers only loopback Hosts and callers without a foreign Origin (local/loopback-guard.mjs):
// SQS's query protocol takes form posts, which any web page could send to 127.0.0.1 without a CORS preflight.
import http from 'node:http'
import net from 'node:net'
import { guardServer } from './loopback-guard.mjs'

const LOOPBACK = '127.0.0.1'
const originalListen = net.Server.prototype.listen
/** Starts in progress: the patch is in place while there is one (in-process starts may overlap). */
let starting = 0

const isLoopback = (host) => host === 'localhost' || host === '::1' || /^127\.\d+\.\d+\.\d+$/.test(host)

/** listen(options, cb) or listen(port, [host], [backlog], [cb]); a pipe path or a handle is left alone. */
function listenOnLoopback(...args) {
  const [first, second] = args
  if (first && typeof first === 'object' && first.path == null && 'port' in first) {
    if (!isLoopback(first.host)) args[0] = { ...first, host: LOOPBACK }
  } else if (typeof first === 'number' || (typeof first === 'string' && /^\d+$/.test(first))) {
    if (typeof second === 'string') {
      if (!isLoopback(second)) args[1] = LOOPBACK
    } else args.splice(1, 0, LOOPBACK)
  }
  if (this instanceof http.Server) guardServer(this)
  return originalListen.apply(this, args)
}

/** startFauxqs(options), its port bound to 127.0.0.1 only. */
export async function startFauxqsOnLoopback(options) {
  // Imported when used: fauxqs is ESM-only, and a CommonJS bundle of a module that imports this one
  // (scripts/run-ts.mjs) must load without it unless it starts fauxqs in-process.
  const { startFauxqs } = await import('fauxqs')
  if (starting++ === 0) net.Server.prototype.listen = listenOnLoopback
  let server
  try {
    server = await startFauxqs(options)
  } finally {
    if (--starting === 0) net.Server.prototype.listen = originalListen
  }
  const bound = new URL(server.address).hostname
  if (bound !== LOOPBACK) {
    await server.stop()
    throw new Error(
      `fauxqs listened on ${bound}, not on ${LOOPBACK} only: refusing to run it (local/fauxqs-loopback.mjs)`,
    )
  }
  return server
}
