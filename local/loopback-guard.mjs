// Whom the local stack's HTTP ports answer. Listening on 127.0.0.1 keeps other machines out, not web pages: a page of
// any site, opened in this machine's browser, can send requests to 127.0.0.1 (a form or a `text/plain` fetch needs no
// CORS preflight), and a name its owner rebinds to 127.0.0.1 makes the page same-origin with the port (DNS
// rebinding). So every port answers only:
// - requests addressed to a loopback name (Host 127.0.0.1, localhost, *.localhost, [::1], with any port): a rebound
//   name is refused with 421;
// - callers without an Origin, or of the port's own origin, or of an origin the developer allowed: another page's
//   request is refused with 403, and so is one the browser marks as cross-site (Sec-Fetch-Site), such as an <img>;
// and no answer carries access-control-* headers that the port did not decide on itself (serverless-offline copies
// any Origin into access-control-allow-origin, with allow-credentials).
// Plain JavaScript: serverless-offline's process loads it before anything else (local/offline-guard-preload.mjs),
// without the TypeScript bundle.

const LOOPBACK_NAME = /^(127\.\d+\.\d+\.\d+|localhost|[a-z0-9-]+(\.[a-z0-9-]+)*\.localhost|\[::1\])$/

/**
 * Whether `host` (a Host header) names this machine's loopback. Any port: a browser writes the port of the URL it
 * calls, so a page cannot make it differ from the listener's, while a local proxy in front of a port (the tests' TCP
 * proxies) forwards its own.
 */
export function isLoopbackHost(host) {
  const name = (host ?? '').toLowerCase().replace(/:\d+$/, '')
  return LOOPBACK_NAME.test(name)
}

/**
 * Why a request must not be answered, as { status, code, message }, or null. `allowedOrigins`: origins (e.g.
 * http://localhost:5173) whose pages may call the port from a browser.
 */
export function refusal(req, port, allowedOrigins = []) {
  const headers = req.headers
  if (!isLoopbackHost(headers.host)) {
    const shown = JSON.stringify(String(headers.host ?? '').slice(0, 100))
    return {
      status: 421,
      code: 'MisdirectedRequest',
      message: `Host ${shown} is not this local port: call http://127.0.0.1:${port}/ (or localhost, [::1])`,
    }
  }
  const origin = headers.origin
  if (origin !== undefined) {
    if (origin === `http://${headers.host.toLowerCase()}` || allowedOrigins.includes(origin)) return null
    return {
      status: 403,
      code: 'Forbidden',
      message: `Origin ${JSON.stringify(origin.slice(0, 100))} may not call this local port (allowed: its own origin${
        allowedOrigins.length ? `, ${allowedOrigins.join(', ')}` : ''
      }; see docs/local.md, SDQ_LOCAL_ALLOWED_ORIGINS)`,
    }
  }
  const site = headers['sec-fetch-site']
  if (site !== undefined && site !== 'same-origin' && site !== 'none') {
    return {
      status: 403,
      code: 'Forbidden',
      message: `a ${site} request without an Origin may not call this local port`,
    }
  }
  return null
}

/** The origins allowed by SDQ_LOCAL_ALLOWED_ORIGINS (comma-separated, each an http(s) origin, nothing else). */
export function allowedOriginsFrom(env) {
  const raw = env.SDQ_LOCAL_ALLOWED_ORIGINS ?? ''
  const origins = raw
    .split(',')
    .map((o) => o.trim())
    .filter(Boolean)
  for (const origin of origins) {
    let parsed
    try {
      parsed = new URL(origin)
    } catch {}
    if (!parsed || !/^https?:$/.test(parsed.protocol) || parsed.origin !== origin) {
      throw new Error(
        `SDQ_LOCAL_ALLOWED_ORIGINS: ${JSON.stringify(origin)} is not an origin (scheme://host[:port], no path)`,
      )
    }
  }
  return origins
}

/** Drops every access-control-* header the server's own code sets on `res`. */
export function withoutCorsHeaders(res) {
  const isCors = (name) => String(name).toLowerCase().startsWith('access-control-')
  const setHeader = res.setHeader
  res.setHeader = function (name, value) {
    return isCors(name) ? this : setHeader.call(this, name, value)
  }
  const writeHead = res.writeHead
  res.writeHead = function (status, ...rest) {
    for (const name of this.getHeaderNames()) if (isCors(name)) this.removeHeader(name)
    const at = rest.findIndex((r) => r && typeof r === 'object')
    if (at >= 0 && Array.isArray(rest[at])) {
      // [name, value, name, value...]: the pairs whose name is not a CORS header
      const flat = rest[at]
      const pairs = []
      for (let i = 0; i + 1 < flat.length; i += 2) if (!isCors(flat[i])) pairs.push(flat[i], flat[i + 1])
      rest[at] = pairs
    } else if (at >= 0) {
      rest[at] = Object.fromEntries(Object.entries(rest[at]).filter(([name]) => !isCors(name)))
    }
    return writeHead.call(this, status, ...rest)
  }
  return res
}

/** The refusal as an HTTP answer with the API's error body (docs/api.md). */
export function answerRefusal(res, refused) {
  res.writeHead(refused.status, { 'content-type': 'application/json', 'cache-control': 'no-store' })
  res.end(JSON.stringify({ error: { code: refused.code, message: refused.message } }))
}

/**
 * Guards an http.Server's 'request' and 'upgrade' events (WebSocket handshakes carry Host and Origin too): a refused
 * request never reaches the server's own handlers, and its answers lose every access-control-* header.
 */
export function guardServerEvents(emit, server, event, args, allowedOrigins = []) {
  if (event !== 'request' && event !== 'upgrade') return emit.apply(server, [event, ...args])
  const [req, resOrSocket] = args
  const port = server.address()?.port
  const refused = refusal(req, port, allowedOrigins)
  if (refused) {
    if (event === 'request') answerRefusal(resOrSocket, refused)
    else resOrSocket.end(`HTTP/1.1 ${refused.status} ${refused.code}\r\nconnection: close\r\ncontent-length: 0\r\n\r\n`)
    return true
  }
  if (event === 'request') withoutCorsHeaders(resOrSocket)
  return emit.apply(server, [event, ...args])
}

/** Guards one server (see guardServerEvents). */
export function guardServer(server, allowedOrigins = []) {
  const emit = server.emit
  server.emit = (event, ...args) => guardServerEvents(emit, server, event, args, allowedOrigins)
  return server
}
