// The strict reading of the message envelope (docs/consumer.md, "The message"): the version, the known fields only,
// times in ISO-8601 with a zone. A loose check let a future envelope run with its new fields dropped, and `"1"` or
// `"March 7"` pass as runAt (Date.parse takes both), which made latenessMs absurd.

/** The envelope version this consumer reads. A body without `v` is version 1 (the scanner's current format). */
export const ENVELOPE_VERSION = 1

const KNOWN_FIELDS = new Set([
  'v',
  'id',
  'queue',
  'payload',
  'runAt',
  'createdAt',
  'dispatchedAt',
  'scheduleId',
  'occurrenceAt',
  'tags',
  'flowKey',
])

/** Ids and queue names are short (the API allows 128 characters for an id): a longer one is not a job message, and
 * would only make every log line about it huge. */
export const MAX_NAME_CHARS = 256

/** Why the envelope is not one this consumer reads, or undefined when it is. */
export function envelopeProblem(o: Record<string, unknown>): string | undefined {
  if (o.v !== undefined && o.v !== ENVELOPE_VERSION) {
    return Number.isInteger(o.v) && (o.v as number) > ENVELOPE_VERSION
      ? `envelope version ${o.v} is newer than this consumer reads (${ENVELOPE_VERSION}): upgrade serverless-delay-queue in this function`
      : `v must be ${ENVELOPE_VERSION} (the envelope version)`
  }
  const unknown = Object.keys(o).filter((k) => !KNOWN_FIELDS.has(k))
  if (unknown.length > 0) {
    const names = unknown.slice(0, 5).map((k) => JSON.stringify(k.slice(0, 40)))
    return `unknown field${unknown.length > 1 ? 's' : ''} ${names.join(', ')}${unknown.length > 5 ? ', …' : ''} (a producer that adds fields sends a newer envelope version)`
  }
  for (const field of ['id', 'queue'] as const) {
    if (!isName(o[field])) return `${field} must be a string of 1-${MAX_NAME_CHARS} characters`
  }
  if (!('payload' in o)) return 'payload is missing'
  for (const field of ['runAt', 'createdAt', 'dispatchedAt'] as const) {
    if (!isIsoInstant(o[field])) return `${field} must be an ISO-8601 date-time with a zone`
  }
  if (o.scheduleId !== undefined || o.occurrenceAt !== undefined) {
    if (!isName(o.scheduleId)) return `scheduleId must be a string of 1-${MAX_NAME_CHARS} characters`
    if (!isIsoInstant(o.occurrenceAt)) return 'occurrenceAt must be an ISO-8601 date-time with a zone'
  }
  if (o.tags !== undefined && !(Array.isArray(o.tags) && o.tags.every(isName))) {
    return `tags must be an array of strings of 1-${MAX_NAME_CHARS} characters`
  }
  if (o.flowKey !== undefined && !isName(o.flowKey)) return `flowKey must be a string of 1-${MAX_NAME_CHARS} characters`
  return undefined
}

function isName(value: unknown): value is string {
  return typeof value === 'string' && value.length > 0 && value.length <= MAX_NAME_CHARS
}

const ISO_INSTANT =
  /^(\d{4})-(\d{2})-(\d{2})T([01]\d|2[0-3]):([0-5]\d):([0-5]\d)(\.\d{1,9})?(Z|[+-](?:[01]\d|2[0-3]):[0-5]\d)$/

/** `2027-01-15T08:00:00.000Z` (what the scanner writes) or any ISO-8601 instant with a zone; a real calendar day. */
export function isIsoInstant(value: unknown): value is string {
  if (typeof value !== 'string') return false
  const m = ISO_INSTANT.exec(value)
  if (!m) return false
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])]
  if (month < 1 || month > 12 || day < 1) return false
  // Date.parse takes 2027-02-30 (as March 2): the day must exist in its month
  if (day > new Date(Date.UTC(year, month, 0)).getUTCDate()) return false
  return !Number.isNaN(Date.parse(value))
}
