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
  const buffer = event.isBase64Encoded ? Buffer.from(event.body, 'base64') : Buffer.from(event.body, 'utf8')
  return { text: buffer.toString('utf8'), bytes: buffer.length }
}

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
