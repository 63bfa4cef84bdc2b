// What the dashboard's routes share: the handler type, a path segment decoded and checked, a JSON body read with a
// bound. Beside ./server.ts, which matches the routes, and the route groups of their own files (./run-routes.ts).
import type { IncomingMessage } from 'node:http'
import { ValidationError } from '../../errors'
import { HttpError } from './request-guard'

/** A route's answer: the status and the JSON body (none for a 204). */
export type Handler = (req: IncomingMessage, match: RegExpMatchArray) => Promise<[number, unknown?]>

/**
 * The path segment `match[1]` (an id, or a queue's name: `field`), decoded and checked by `validate`; a malformed
 * %-escape is a 400 naming the field, not a URIError's 500.
 */
export function idIn(match: RegExpMatchArray, validate: (id: string) => string, field = 'id'): string {
  let id: string
  try {
    id = decodeURIComponent(match[1]!)
  } catch (e) {
    if (e instanceof URIError)
      throw new ValidationError([{ path: field, message: 'is not a valid URL-encoded path segment' }])
    throw e
  }
  return validate(id)
}

/** The request's JSON body (an empty body is {}): 413 past 10,000 characters, 400 when it is not JSON. */
export async function readJson(req: IncomingMessage): Promise<unknown> {
  let text = ''
  for await (const chunk of req) {
    text += chunk
    if (text.length > 10_000) throw new HttpError(413, 'body too large')
  }
  try {
    return text ? JSON.parse(text) : {}
  } catch {
    throw new ValidationError([{ path: '', message: 'is not valid JSON' }])
  }
}
