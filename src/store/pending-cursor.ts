// The cursor of GET /jobs: opaque to callers, base64url of "w<walk>:<due ms>:<job id>": the position of the last job
// a page examined (its due time and id: pages are in (due time, id) order) and the walk it belongs to, which names
// the walk's frontier in Redis (src/store/pending-walk.ts). A cursor without a walk ("<due ms>:<job id>", as earlier
// versions wrote) is still read: its next page starts a walk.
import { randomBytes } from 'node:crypto'
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

export function encodePendingCursor(at: PendingCursor): string {
  return Buffer.from(`${at.walk ? `w${at.walk}:` : ''}${at.dueMs}:${at.id}`).toString('base64url')
}

/** Throws ValidationError (path "cursor") for anything that is not a cursor a page gave: changes nothing. */
export function decodePendingCursor(cursor: string): PendingCursor {
  const text = /^[A-Za-z0-9_-]{1,300}$/.test(cursor) ? Buffer.from(cursor, 'base64url').toString() : ''
  const m = /^(?:w([^:]*):)?(\d{1,15}):(.*)$/s.exec(text)
  const walk = m?.[1]
  if (!m || (walk !== undefined && !WALK.test(walk)) || !isId(m[3]!) || Number(m[2]) > 8.64e15) {
    throw new ValidationError([{ path: 'cursor', message: 'must be a cursor from a previous page' }])
  }
  return { walk: walk ?? null, dueMs: Number(m[2]), id: m[3]! }
}
