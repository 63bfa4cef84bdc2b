// The stored form of a job (any state, dead included): one hash field per job, written by lua/enqueue.lua.
//
//   "<queue>\n<createdAt ms, base 36>\n<version>[:<write token>.<request digest>]\n<groupId>[ <flowKey>]\n<payload JSON>[\n<tags>]"
//
// The write token (the Idempotency-Key of the write that stored this version: src/direct/write-token.ts) and the
// digest of that write's request (lua/includes/requestDigest.lua) are
// there only when that write sent one: a later attempt of the same call is then recognised, and the same token with
// another request refused (lua/enqueue.lua).
// A compact header rather than JSON: with a 200-byte payload the record stays inside Redis's 224-byte allocation
// class, where JSON keys would push it to the next one (256). JSON.stringify never emits a raw newline, so the
// payload needs no escaping; queue names and group ids are validated to exclude "\n". A job's tags
// (src/direct/tag-rules.ts: no "\n" either) follow the payload one a line, only when it has some: a job without costs
// nothing.

/** The "\n"-ended lines before the payload (lua/record-heads.lua reads records up to them). */
export const RECORD_HEADER_LINES = 4

export interface StoredJob {
  queue: string
  createdAtMs: number
  /** Bumped each time the job is replaced (PUT): part of the FIFO deduplication id. */
  version: number
  groupId?: string
  /** The write token of the write that stored this version, when it sent one (copied into the dispatch receipt). */
  writeToken?: string
  /** 8 hex digits of the request that write sent (lua/includes/requestDigest.lua), with the token. */
  requestDigest?: string
  /** The payload as JSON text, exactly as it will be sent. */
  payloadJson: string
  /** Its tags (src/direct/tag-rules.ts), when it has any. */
  tags?: string[]
  /** Its flow key (docs/flow-control.md): rates and pauses per key. */
  flowKey?: string
}

/**
 * The record's group line: the group id, then the flow key after a space (neither may hold one), only when there is
 * one, so a job without a flow key costs no byte. The scripts store and return the line as the group id field.
 */
export function groupLine(groupId: string | undefined, flowKey: string | undefined): string {
  return flowKey ? `${groupId ?? ''} ${flowKey}` : (groupId ?? '')
}

/** A group line's group id and flow key (groupLine). */
export function splitGroupLine(line: string): { groupId?: string; flowKey?: string } {
  const space = line.indexOf(' ')
  const groupId = space < 0 ? line : line.slice(0, space)
  return {
    ...(groupId ? { groupId } : {}),
    ...(space < 0 ? {} : { flowKey: line.slice(space + 1) }),
  }
}

export function decodeRecord(record: string): StoredJob {
  return decodeRecordInto(record, {})
}

/**
 * decodeRecord's fields written onto `target` (a claim's job with its lease fields): one object per job, not a
 * decoded record spread into another (a burst claims tens of thousands a second).
 */
export function decodeRecordInto<T extends object>(record: string, target: T): T & StoredJob {
  const a = record.indexOf('\n')
  const b = record.indexOf('\n', a + 1)
  const c = record.indexOf('\n', b + 1)
  const d = record.indexOf('\n', c + 1)
  if (a < 0 || b < 0 || c < 0 || d < 0) throw new Error('corrupt job record')
  const job = target as T & StoredJob
  job.queue = record.slice(0, a)
  job.createdAtMs = parseInt(record.slice(a + 1, b), 36)
  // "<version>" or "<version>:<write token>[.<request digest>]" (the token only when the write sent one).
  const colon = record.indexOf(':', b + 1)
  if (colon < 0 || colon > c) job.version = Number(record.slice(b + 1, c))
  else {
    job.version = Number(record.slice(b + 1, colon))
    const dot = record.indexOf('.', colon + 1)
    const end = dot < 0 || dot > c ? c : dot
    const writeToken = record.slice(colon + 1, end)
    if (writeToken) job.writeToken = writeToken
    if (end < c) job.requestDigest = record.slice(end + 1, c)
  }
  if (d > c + 1) {
    const space = record.indexOf(' ', c + 1)
    if (space < 0 || space > d) job.groupId = record.slice(c + 1, d)
    else {
      if (space > c + 1) job.groupId = record.slice(c + 1, space)
      job.flowKey = record.slice(space + 1, d)
    }
  }
  const e = record.indexOf('\n', d + 1)
  if (e < 0) job.payloadJson = record.slice(d + 1)
  else {
    job.payloadJson = record.slice(d + 1, e)
    job.tags = record.slice(e + 1).split('\n')
  }
  return job
}
