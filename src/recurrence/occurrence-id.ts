// An occurrence of a schedule is an ordinary job whose id is "<scheduleId>@<occurrence epoch ms>": deterministic, so
// the same occurrence can never exist twice, and readable back into its schedule and time. Job ids chosen by users
// never contain "@" (src/direct/id-rules.ts), so the two kinds of id cannot collide.

import { OCCURRENCE_SEPARATOR } from '../contract/ids'

export { OCCURRENCE_SEPARATOR }

export function occurrenceId(scheduleId: string, atMs: number): string {
  return `${scheduleId}${OCCURRENCE_SEPARATOR}${atMs}`
}

export interface OccurrenceRef {
  scheduleId: string
  atMs: number
}

/** The schedule and time an occurrence id names, or null for an ordinary job id. */
export function parseOccurrenceId(id: string): OccurrenceRef | null {
  const at = id.lastIndexOf(OCCURRENCE_SEPARATOR)
  if (at <= 0) return null
  const ms = id.slice(at + 1)
  if (!/^\d{1,15}$/.test(ms)) return null
  return { scheduleId: id.slice(0, at), atMs: Number(ms) }
}

/** The part of an id that decides where it lives: a schedule's occurrences live with the schedule. */
export function placementId(id: string): string {
  const at = id.indexOf(OCCURRENCE_SEPARATOR)
  return at < 0 ? id : id.slice(0, at)
}
