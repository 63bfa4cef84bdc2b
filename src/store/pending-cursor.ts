// The cursor of GET /jobs: opaque to callers, "<text>.<mac>": the text base64url of "w<walk>:<due ms>:<job id>", the
// position of the last job a page examined (its due time and id: pages are in (due time, id) order) and the walk it
// belongs to, which names the walk's frontier in Redis (src/store/pending-walk.ts); the mac the first 16 bytes of its
// HMAC-SHA256 under the deployment's cursor key (src/store/cursor-key.ts), base64url. Signed because a position
// costs Redis what its depth costs: a forged cursor could start walks deep in a queue at will. A cursor that is not
// signed (as versions before signing wrote) or altered is refused (400) like a malformed one.
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto'
import { JOB_ID_PATTERN, OCCURRENCE_ID_PATTERN } from '../direct/id-rules'
import { ValidationError } from '../errors'

/** A position in due order: a job's due time and id. */
export interface Due {
  id: string
  dueMs: number
}

export interface PendingCursor extends Due {
  /** The walk (a page and the pages after it by cursor); null for a cursor that has none. */
  walk: string | null
}

/** Orders positions: by due time, then by id (as a sorted set orders equal scores). */
export const before = (a: Due, b: Due) => a.dueMs - b.dueMs || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)

const WALK = /^[A-Za-z0-9_-]{11}$/
/** The last job a page examined: a job id, or an occurrence id ("<schedule id>@<ms>"), by the id rules. */
const isId = (id: string) => JOB_ID_PATTERN.test(id) || OCCURRENCE_ID_PATTERN.test(id)

/** A new walk's name: 11 characters of base64url, random (64 bits). */
export function newWalk(): string {
  return randomBytes(8).toString('base64url')
}

const macOf = (key: Buffer, text: string) => createHmac('sha256', key).update(text).digest().subarray(0, 16)

export function encodePendingCursor(at: PendingCursor, key: Buffer): string {
  const text = Buffer.from(`${at.walk ? `w${at.walk}:` : ''}${at.dueMs}:${at.id}`).toString('base64url')
  return `${text}.${macOf(key, text).toString('base64url')}`
}

const refused = (rule = 'must be a cursor from a previous page') =>
  new ValidationError([{ path: 'cursor', message: rule }])

/** Whether `cursor` carries the mac of its text under `key` (its form checked by decodePendingCursor). */
export function signedWith(cursor: string, key: Buffer): boolean {
  const [text = '', mac = ''] = cursor.split('.')
  return timingSafeEqual(macOf(key, text), Buffer.from(mac, 'base64url'))
}

/**
 * Throws ValidationError (path "cursor") for anything that is not a cursor a page gave, or, given the key, not signed
 * with it: changes nothing.
 */
export function decodePendingCursor(cursor: string, key?: Buffer): PendingCursor {
  const form = /^([A-Za-z0-9_-]{1,300})\.[A-Za-z0-9_-]{22}$/.exec(cursor)
  const text = form ? Buffer.from(form[1]!, 'base64url').toString() : ''
  const m = /^(?:w([^:]*):)?(\d{1,15}):(.*)$/s.exec(text)
  const walk = m?.[1]
  if (!m || (walk !== undefined && !WALK.test(walk)) || !isId(m[3]!) || Number(m[2]) > 8.64e15) throw refused()
  if (key && !signedWith(cursor, key)) throw refused('must be a cursor from a previous page, unaltered')
  return { walk: walk ?? null, dueMs: Number(m[2]), id: m[3]! }
}
