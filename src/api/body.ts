// Reading a JSON request body: 415 unless the content type is JSON, 400 when it is missing or malformed.
import type { APIGatewayProxyEventV2 } from 'aws-lambda'
import { ValidationError } from '../errors'
import { UnsupportedMediaTypeError } from './errors'

const JSON_TYPE = /^application\/([a-z0-9.+-]+\+)?json\s*(;|$)/i

export interface RawBody {
  text: string
  /** UTF-8 bytes as received (after base64 decoding). */
  bytes: number
}

export function rawJsonBody(event: APIGatewayProxyEventV2): RawBody {
  const contentType = header(event, 'content-type')
  if (!contentType || !JSON_TYPE.test(contentType.trim())) throw new UnsupportedMediaTypeError(contentType)
  if (event.body === undefined || event.body === null || event.body === '') {
    throw new ValidationError([{ path: '', message: 'a JSON body is required' }])
  }
  if (event.isBase64Encoded) {
    const buffer = Buffer.from(event.body, 'base64')
    try {
      return { text: strictUtf8.decode(buffer), bytes: buffer.length }
    } catch {
      throw notUtf8()
    }
  }
  // A lone surrogate cannot be encoded: Buffer would turn it into U+FFFD and store an altered payload.
  if (!event.body.isWellFormed()) throw notUtf8()
  return { text: event.body, bytes: Buffer.byteLength(event.body) }
}

/** Throws on malformed bytes instead of replacing them with U+FFFD. */
const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false })

const notUtf8 = () => new ValidationError([{ path: '', message: 'is not valid UTF-8' }])

/** Parsed JSON. `__proto__` keys become plain own properties (JSON.parse never sets prototypes); validation
 * rejects them where they matter. */
export function parseJson(raw: RawBody): unknown {
  try {
    return JSON.parse(raw.text)
  } catch (e) {
    throw new ValidationError([{ path: '', message: `is not valid JSON (${(e as Error).message})` }])
  }
}

export function header(event: APIGatewayProxyEventV2, name: string): string | undefined {
  const headers = event.headers ?? {}
  if (headers[name] !== undefined) return headers[name]
  for (const [key, value] of Object.entries(headers)) if (key.toLowerCase() === name) return value
  return undefined
}
