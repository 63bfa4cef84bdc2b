// The SQS message a job becomes: the consumers' contract (docs/consumer.md, "The message").
import { createHash } from 'node:crypto'
import { parseOccurrenceId } from '../recurrence/occurrence-id'
import { isoTime } from '../shared/iso-time'
import { rawInputBody } from './raw-input'
import type { JobMessage } from '../contract/message'

export type { JobMessage }

/** Message attribute carrying the job id, so consumers and tools can see it without parsing the body. */
export const JOB_ID_ATTRIBUTE = 'jobId'

export interface EnvelopeSource {
  id: string
  queue: string
  payloadJson: string
  dueMs: number
  createdAtMs: number
  /** Its tags, when it has some (absent or empty: the body has no `tags`). */
  tags?: readonly string[]
  /** Its flow key, when it has one. */
  flowKey?: string
}

/** What a job carries beside its payload that a redrive must give back: its tags and flow key (JobMessage). */
export type JobLabels = Pick<EnvelopeSource, 'tags' | 'flowKey'>

/** The body, built around the stored payload text (never re-parsed: it was validated JSON when accepted). */
export function messageBody(job: EnvelopeSource, dispatchedAtMs: number): string {
  const raw = rawInputBody(job.id, job.payloadJson)
  if (raw !== undefined) return raw
  const occurrence = parseOccurrenceId(job.id)
  return (
    `{"id":${JSON.stringify(job.id)},"queue":${JSON.stringify(job.queue)},"payload":${job.payloadJson},` +
    `"runAt":"${iso(job.dueMs)}","createdAt":"${iso(job.createdAtMs)}","dispatchedAt":"${iso(dispatchedAtMs)}"` +
    (occurrence
      ? `,"scheduleId":${JSON.stringify(occurrence.scheduleId)},"occurrenceAt":"${iso(occurrence.atMs)}"`
      : '') +
    // Only when the job has them: an untagged job's body gains no byte and its build two property reads.
    (job.tags?.length ? `,"tags":${JSON.stringify(job.tags)}` : '') +
    (job.flowKey ? `,"flowKey":${JSON.stringify(job.flowKey)}}` : '}')
  )
}

/** Size as SQS counts it: body bytes plus each attribute's name, type and value bytes. */
export function messageBytes(body: string, jobId: string): number {
  return Buffer.byteLength(body) + JOB_ID_ATTRIBUTE.length + 'String'.length + Buffer.byteLength(jobId)
}

/**
 * The size a job's message will have, known at enqueue time (dates are fixed-width ISO strings), its tags and flow
 * key included.
 */
export function expectedMessageBytes(id: string, queue: string, payloadJson: string, labels: JobLabels = {}): number {
  const t = 0
  return messageBytes(messageBody({ id, queue, payloadJson, dueMs: t, createdAtMs: t, ...labels }, t), id)
}

/**
 * FIFO deduplication id of one version of one incarnation of a job: the job id, its creation time (Redis ms) and its
 * version. A replace (PUT) keeps the creation time and bumps the version; a job created again under an id whose
 * earlier job was dispatched starts again at version 0 with a new creation time. So neither is swallowed by SQS's
 * 5-minute window, while a re-send of the same version (a scanner died after the send) is. Without `createdAtMs`
 * (tools that make ids of their own): the id and version only. Hashed: ids may be up to 128 chars.
 */
export function deduplicationId(id: string, version: number, createdAtMs?: number): string {
  const incarnation = createdAtMs === undefined ? '' : `\n${createdAtMs}`
  return createHash('sha256').update(`${id}\n${version}${incarnation}`).digest('hex')
}

/**
 * ISO strings, memoized: a message carries three, and in a burst most share their millisecond (a claim's
 * dispatch time, jobs due together). toISOString allocated a Date per call and led our own CPU profile.
 */
const isoCache = new Map<number, string>()

function iso(ms: number): string {
  let s = isoCache.get(ms)
  if (s === undefined) {
    if (isoCache.size >= 4096) isoCache.clear()
    s = isoTime(ms)
    isoCache.set(ms, s)
  }
  return s
}
