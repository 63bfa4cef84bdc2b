// The SQS message body (docs/consumer.md, "The message") back into a typed JobMessage, with a reason when it is not one.
import type { JobMessage } from '../sqs/envelope'
import { envelopeProblem } from './envelope-check'
import type { PayloadIssue } from './issues'
import { applyPayloadParser, type PayloadParser } from './payload-parser'

export type ParseResult<Payload> =
  | { ok: true; message: JobMessage<Payload> }
  | { ok: false; reason: string; issues?: PayloadIssue[]; issueCount?: number }

/** `parsePayload` may validate and narrow the payload (a Standard Schema such as a zod schema, a type guard, or a
 * function); what it rejects becomes the reason, bounded in size. Reasons name fields, never payload values (the
 * payload can hold personal data), unless the schema's own messages quote them. */
export async function parseJobMessage<Payload = unknown>(
  body: string,
  parsePayload?: PayloadParser<Payload>,
): Promise<ParseResult<Payload>> {
  let raw: unknown
  try {
    raw = JSON.parse(body)
  } catch {
    return { ok: false, reason: 'body is not JSON' }
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw))
    return { ok: false, reason: 'body is not an object' }
  const o = raw as Record<string, unknown>
  const problem = envelopeProblem(o)
  if (problem) return { ok: false, reason: problem }
  let payload = o.payload as Payload
  if (parsePayload) {
    const outcome = await applyPayloadParser(parsePayload, o.payload)
    if (!outcome.ok) return outcome
    payload = outcome.payload
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
      ...(o.scheduleId !== undefined
        ? { scheduleId: o.scheduleId as string, occurrenceAt: o.occurrenceAt as string }
        : {}),
      ...(o.tags !== undefined ? { tags: o.tags as string[] } : {}),
      ...(o.flowKey !== undefined ? { flowKey: o.flowKey as string } : {}),
    },
  }
}
