// The HTTP request a job on an HTTP target queue describes: its payload is `{ url, method, headers, body, callbacks }`,
// each field optional where the queue's default (HTTP_TARGETS) gives it. Checked at enqueue (a 400 naming the field
// and the rule) and again by the forwarder, which merges the queue's defaults in.
import { z } from 'zod'

export const HTTP_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const
export type HttpMethod = (typeof HTTP_METHODS)[number]

export const HTTP_LIMITS = { urlChars: 2_048, headers: 32, headerChars: 8_192, bodyBytes: 256 * 1024 } as const

/** Headers the forwarder sets itself (framing, the connection, the signature) or that would retarget the request. */
export const FORBIDDEN_HEADERS: ReadonlySet<string> = new Set([
  'host',
  'content-length',
  'transfer-encoding',
  'connection',
  'keep-alive',
  'upgrade',
  'te',
  'trailer',
  'expect',
  'proxy-authorization',
  'proxy-connection',
  'webhook-id',
  'webhook-timestamp',
  'webhook-signature',
])

const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/
const HEADER_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/

export const httpRequestSchema = z.strictObject({
  url: z.string({ error: 'must be a URL string' }).optional().meta({
    description: 'https (http on the local stage only); default: the queue default; at most 2,048 characters',
  }),
  method: z
    .enum(HTTP_METHODS, { error: `must be one of ${HTTP_METHODS.join(', ')}` })
    .optional()
    .meta({ description: 'default: the queue default, else POST' }),
  headers: z
    .record(z.string(), z.string({ error: 'must be a string' }), { error: 'must be an object of strings' })
    .optional(),
  /** A string is sent as it is (text/plain unless a content-type header says otherwise); any other value as JSON. */
  body: z.unknown().optional().meta({
    description:
      'a string is sent as it is (text/plain unless content-type is given), any other JSON value as JSON; <= 256 KiB',
  }),
  callbacks: z
    .strictObject({
      success: z.string({ error: 'must be a URL string' }).optional(),
      failure: z.string({ error: 'must be a URL string' }).optional(),
    })
    .optional(),
})

export type HttpRequestSpec = z.infer<typeof httpRequestSchema>

/** A queue's defaults: what its jobs may leave out. */
export interface HttpDefaults {
  url?: string
  method?: HttpMethod
  headers?: Record<string, string>
}

export interface UrlRules {
  /** Real stages: https only. Locally http is allowed too. */
  httpsOnly: boolean
}

export interface ResolvedRequest {
  url: URL
  method: HttpMethod
  headers: Record<string, string>
  body?: Buffer
  callbacks: { success?: URL; failure?: URL }
}

type Fail = (path: string, message: string) => void

/** Checks a job's payload as an HTTP request, reporting each problem under `prefix` (e.g. "payload"). */
export function checkHttpRequest(
  payload: unknown,
  defaults: HttpDefaults,
  rules: UrlRules,
  fail: Fail,
  prefix = 'payload',
): ResolvedRequest | undefined {
  const parsed = httpRequestSchema.safeParse(payload)
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      const where = [prefix, ...issue.path.map(String)].join('.')
      const message =
        issue.code === 'unrecognized_keys'
          ? `has unknown fields ${issue.keys.join(', ')} (known: ${issue.path[0] === 'callbacks' ? 'success, failure' : 'url, method, headers, body, callbacks'})`
          : issue.code === 'invalid_type' && issue.path.length === 0
            ? 'must be an object { url, method, headers, body, callbacks } on an HTTP target queue'
            : issue.message
      fail(where, message)
    }
    return undefined
  }
  const spec = parsed.data
  const before = failures(fail)
  const url = checkUrl(spec.url ?? defaults.url, `${prefix}.url`, rules, before.fail, !spec.url && !defaults.url)
  const method = spec.method ?? defaults.method ?? 'POST'
  const headers = checkHeaders({ ...defaults.headers, ...spec.headers }, `${prefix}.headers`, before.fail)
  const body = encodeBody(spec.body, method, headers, `${prefix}.body`, before.fail)
  const callbacks: ResolvedRequest['callbacks'] = {}
  for (const kind of ['success', 'failure'] as const) {
    const given = spec.callbacks?.[kind]
    if (given !== undefined) callbacks[kind] = checkUrl(given, `${prefix}.callbacks.${kind}`, rules, before.fail, false)
  }
  if (before.count() > 0) return undefined
  return { url: url!, method, headers, ...(body ? { body } : {}), callbacks }
}

function failures(fail: Fail) {
  let count = 0
  return {
    fail: (path: string, message: string) => {
      count++
      fail(path, message)
    },
    count: () => count,
  }
}

function checkUrl(text: string | undefined, path: string, rules: UrlRules, fail: Fail, missing: boolean) {
  if (text === undefined) {
    if (missing) fail(path, 'is required (the queue has no default URL)')
    return undefined
  }
  if (text.length > HTTP_LIMITS.urlChars) return void fail(path, `must be at most ${HTTP_LIMITS.urlChars} characters`)
  let url: URL
  try {
    url = new URL(text)
  } catch {
    return void fail(path, 'must be an absolute URL')
  }
  const schemes = rules.httpsOnly ? ['https:'] : ['https:', 'http:']
  if (!schemes.includes(url.protocol)) return void fail(path, `must use ${rules.httpsOnly ? 'https' : 'http or https'}`)
  if (url.username || url.password) return void fail(path, 'must not carry credentials: use an authorization header')
  return url
}

function checkHeaders(headers: Record<string, string>, path: string, fail: Fail): Record<string, string> {
  const out: Record<string, string> = {}
  const names = Object.keys(headers)
  if (names.length > HTTP_LIMITS.headers) fail(path, `must hold at most ${HTTP_LIMITS.headers} headers`)
  let chars = 0
  for (const name of names) {
    const value = headers[name]!
    const lower = name.toLowerCase()
    chars += name.length + value.length
    if (!TOKEN.test(name)) fail(`${path}.${name}`, 'is not a valid header name')
    else if (FORBIDDEN_HEADERS.has(lower) || lower.startsWith('proxy-'))
      fail(`${path}.${name}`, 'is set by the forwarder and cannot be given')
    else if (!HEADER_VALUE.test(value))
      fail(`${path}.${name}`, 'must hold only printable Latin-1 characters (no line breaks or control characters)')
    else out[lower] = value
  }
  if (chars > HTTP_LIMITS.headerChars) fail(path, `must total at most ${HTTP_LIMITS.headerChars} characters`)
  return out
}

function encodeBody(body: unknown, method: HttpMethod, headers: Record<string, string>, path: string, fail: Fail) {
  if (body === undefined) return undefined
  if (method === 'GET') return void fail(path, 'must be left out for GET')
  let bytes: Buffer
  if (typeof body === 'string') {
    bytes = Buffer.from(body, 'utf8')
    headers['content-type'] ??= 'text/plain; charset=utf-8'
  } else {
    bytes = Buffer.from(JSON.stringify(body) ?? 'null', 'utf8')
    headers['content-type'] ??= 'application/json'
  }
  if (bytes.length > HTTP_LIMITS.bodyBytes) return void fail(path, `must be at most ${HTTP_LIMITS.bodyBytes} bytes`)
  return bytes
}
