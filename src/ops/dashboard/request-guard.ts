// What the dashboard checks before it answers: whom a request is addressed to (Host) and, for actions, that it is
// JSON from the page's own origin. The dashboard has no login; it is safe because only this machine's browser reaches
// it, and these checks keep a web page from using that browser against it.
import type { IncomingMessage } from 'node:http'

/** The page's own refusals, with the code each status has in the HTTP API's error bodies (docs/api.md). */
const HTTP_CODES: Record<number, string> = {
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'NotFound',
  413: 'PayloadTooLarge',
  415: 'UnsupportedMediaType',
  421: 'MisdirectedRequest',
}

export class HttpError extends Error {
  readonly code: string
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message)
    this.code = HTTP_CODES[status] ?? 'BadRequest'
  }
}

/** The Host values the dashboard answers: its loopback names at its own port (a browser omits port 80). */
export function loopbackHosts(port: number): Set<string> {
  const names = ['127.0.0.1', 'localhost', '[::1]']
  return new Set([...names.map((n) => `${n}:${port}`), ...(port === 80 ? names : [])])
}

/**
 * DNS rebinding: a page of attacker.example whose name the attacker then resolves to 127.0.0.1 is, to the browser,
 * same-origin with the dashboard's port, so it may read the answers and send actions whose Origin matches its Host.
 * Its requests still carry its own name as Host: answering only our own loopback names shuts it out (421: this server
 * is not the one that name means).
 */
export function checkHost(req: IncomingMessage, allowed: Set<string>): void {
  const host = (req.headers.host ?? '').toLowerCase()
  if (allowed.has(host)) return
  const shown = JSON.stringify(host.slice(0, 100))
  const ours = [...allowed][0]!
  throw new HttpError(421, `Host ${shown} is not this dashboard: open http://${ours}/ (or localhost, [::1])`)
}

/**
 * Actions: JSON only (a cross-site form cannot send it without a CORS preflight), and from this origin. A request
 * without an Origin is a tool's on this machine (browsers send one with every action); from another address (a
 * dashboard bound beyond loopback, ./token-guard.ts) it must name this origin, unless it carries the token as a bearer
 * (`bearer`: a header no other site's page can make a browser send).
 */
export function checkAction(req: IncomingMessage, bearer = false): void {
  if (!(req.headers['content-type'] ?? '').startsWith('application/json')) {
    throw new HttpError(415, 'actions need content-type: application/json')
  }
  const origin = req.headers.origin
  if (origin === undefined && !bearer && !isLoopbackPeer(req)) {
    throw new HttpError(403, 'an action from another address needs an Origin (the page sends it) or the bearer token')
  }
  if (origin !== undefined && !sameOrigin(origin, req.headers.host ?? '')) {
    throw new HttpError(403, 'cross-origin action refused')
  }
}

function isLoopbackPeer(req: IncomingMessage): boolean {
  const peer = (req.socket.remoteAddress ?? '').replace(/^::ffff:/, '')
  return peer === '::1' || peer.startsWith('127.')
}

/** `Origin: null` (a sandboxed frame, a file) or anything unparsable is another origin. */
function sameOrigin(origin: string, host: string): boolean {
  try {
    const url = new URL(origin)
    return url.protocol === 'http:' && url.host === host.toLowerCase()
  } catch {
    return false
  }
}
