// The dashboard's access token (SDQ_DASHBOARD_TOKEN), for a dashboard that other addresses can reach. Bound to
// loopback, the dashboard needs none: only this machine reaches it, and ./request-guard.ts keeps web pages out. Bound
// to any other address, anyone who reaches the port would read every payload and cancel jobs (a Host header naming
// 127.0.0.1 is anyone's to send), so such a bind is refused unless a token is required, and then every request needs
// it: `Authorization: Bearer <token>` (scripts), or the cookie that opening /?token=<token> once sets (the browser).
// The cookie is HttpOnly and SameSite=Strict: another site's page cannot read it, and its requests do not carry it.
import { createHash, timingSafeEqual } from 'node:crypto'
import type { IncomingMessage, ServerResponse } from 'node:http'
import { isIP } from 'node:net'
import { ConfigError } from '../../errors'
import { HttpError } from './request-guard'

export const TOKEN_SETTING = 'SDQ_DASHBOARD_TOKEN'
const COOKIE = 'sdq_dashboard'
/** Long enough that guessing it over HTTP is hopeless (e.g. `openssl rand -hex 32` gives 64). */
const MIN_TOKEN_LENGTH = 32

/** Whether `host` (a bind address or a peer's address) is this machine's loopback. */
export function isLoopbackAddress(host: string | undefined): boolean {
  const h = (host ?? '').replace(/^::ffff:/, '')
  return h === 'localhost' || h === '::1' || (isIP(h) === 4 && h.startsWith('127.'))
}

/**
 * The bind's rule: a non-loopback `host` (0.0.0.0, ::, a LAN address) only with a token; a token given must be long
 * enough. ConfigError naming SDQ_DASHBOARD_TOKEN otherwise.
 */
export function checkBind(host: string, token: string | undefined): void {
  if (token !== undefined && token.length < MIN_TOKEN_LENGTH) {
    throw new ConfigError(TOKEN_SETTING, `must be at least ${MIN_TOKEN_LENGTH} characters (openssl rand -hex 32)`)
  }
  if (token === undefined && !isLoopbackAddress(host)) {
    throw new ConfigError(
      TOKEN_SETTING,
      `is required to bind the dashboard to ${host}: any address other than loopback lets others reach it ` +
        '(payloads, cancels); set it, or keep the default 127.0.0.1 and reach it through an SSH tunnel',
    )
  }
}

const digest = (value: string) => createHash('sha256').update(value).digest()

export class TokenGuard {
  private readonly expected: Buffer

  constructor(token: string) {
    this.expected = digest(token)
  }

  private matches(given: string | undefined): boolean {
    return given !== undefined && timingSafeEqual(digest(given), this.expected)
  }

  /** Whether the request carries the token in an Authorization header (a script: no cookie, no CSRF exposure). */
  bearer(req: IncomingMessage): boolean {
    const m = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')
    return this.matches(m?.[1])
  }

  /**
   * `/?token=<token>`: answered here with the cookie and a redirect to `/` (the token leaves the address bar and the
   * history). Returns whether it answered.
   */
  login(req: IncomingMessage, res: ServerResponse): boolean {
    const url = new URL(req.url ?? '/', 'http://dashboard')
    if (req.method !== 'GET' || url.pathname !== '/' || !url.searchParams.has('token')) return false
    if (!this.matches(url.searchParams.get('token') ?? undefined)) throw this.refused()
    res.writeHead(303, {
      location: '/',
      'set-cookie': `${COOKIE}=${encodeURIComponent(url.searchParams.get('token')!)}; HttpOnly; SameSite=Strict; Path=/`,
      'cache-control': 'no-store',
      'referrer-policy': 'no-referrer',
    })
    res.end()
    return true
  }

  /** Every request: the token as a bearer or as the cookie; a 401 otherwise. */
  check(req: IncomingMessage): void {
    if (this.bearer(req) || this.matches(cookieOf(req.headers.cookie ?? ''))) return
    throw this.refused()
  }

  private refused(): HttpError {
    return new HttpError(
      401,
      `this dashboard needs its token (${TOKEN_SETTING}): open /?token=<token> once, or send Authorization: Bearer <token>`,
    )
  }
}

function cookieOf(header: string): string | undefined {
  for (const part of header.split(';')) {
    const [name, ...value] = part.trim().split('=')
    if (name === COOKIE) {
      try {
        return decodeURIComponent(value.join('='))
      } catch {
        return undefined
      }
    }
  }
  return undefined
}
