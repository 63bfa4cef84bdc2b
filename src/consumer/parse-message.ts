// The SQS message body (docs/consumer.md, "The message") back into a typed JobMessage, with a reason when it is not one.
import type { JobMessage } from '../sqs/envelope'

export type ParseResult<Payload> = { ok: true; message: JobMessage<Payload> } | { ok: false; reason: string }

const DATE_FIELDS = ['runAt', 'createdAt', 'dispatchedAt'] as const

/** `parsePayload` may validate and narrow the payload (e.g. a zod schema's `parse`); what it throws becomes the
 * reason. Reasons name fields, never payload values (the payload can hold personal data). */
export function parseJobMessage<Payload = unknown>(
  body: string,
  parsePayload?: (payload: unknown) => Payload,
): ParseResult<Payload> {
  let raw: unknown
  try {
    raw = JSON.parse(body)
  } catch {
    return { ok: false, reason: 'body is not JSON' }
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw))
    return { ok: false, reason: 'body is not an object' }
  const o = raw as Record<string, unknown>
  for (const field of ['id', 'queue'] as const) {
    if (typeof o[field] !== 'string' || o[field] === '')
      return { ok: false, reason: `${field} must be a non-empty string` }
  }
  if (!('payload' in o)) return { ok: false, reason: 'payload is missing' }
  for (const field of DATE_FIELDS) {
    if (typeof o[field] !== 'string' || Number.isNaN(Date.parse(o[field] as string))) {
      return { ok: false, reason: `${field} must be an ISO-8601 date` }
    }
  }
  const occurrence: Pick<JobMessage, 'scheduleId' | 'occurrenceAt'> = {}
  if (o.scheduleId !== undefined || o.occurrenceAt !== undefined) {
    if (typeof o.scheduleId !== 'string' || o.scheduleId === '')
      return { ok: false, reason: 'scheduleId must be a non-empty string' }
    if (typeof o.occurrenceAt !== 'string' || Number.isNaN(Date.parse(o.occurrenceAt))) {
      return { ok: false, reason: 'occurrenceAt must be an ISO-8601 date' }
    }
    occurrence.scheduleId = o.scheduleId
    occurrence.occurrenceAt = o.occurrenceAt
  }
  let payload = o.payload as Payload
  if (parsePayload) {
    try {
      payload = parsePayload(o.payload)
    } catch (error) {
      return { ok: false, reason: `payload rejected: ${error instanceof Error ? error.message : String(error)}` }
    }
  }
  return {
    ok: true,
    message: {
      id: o.id as string,
      queue: o.queue as string,
      payload,
      runAt: o.runAt as string,
      createdAt: o.createdAt as string,
      dispatchedAt: o.dispatchedAt as string,
      ...occurrence,
    },
  }
}
