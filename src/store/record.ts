// The stored form of a job (any state, dead included): one hash field per job, written by lua/enqueue.lua.
//
//   "<queue>\n<createdAt ms, base 36>\n<version>[:<write token>]\n<groupId>\n<payload JSON>"
//
// The write token (the Idempotency-Key of the write that stored this version: src/direct/write-token.ts) is there
// only when that write sent one: a later attempt of the same call is then recognised (lua/enqueue.lua).
// A compact header rather than JSON: with a 200-byte payload the record stays inside Redis's 224-byte allocation
// class, where JSON keys would push it to the next one (256). JSON.stringify never emits a raw newline, so the
// payload (last) needs no escaping; queue names and group ids are validated to exclude "\n".

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
  /** The payload as JSON text, exactly as it will be sent. */
  payloadJson: string
}

export function decodeRecord(record: string): StoredJob {
  const a = record.indexOf('\n')
  const b = record.indexOf('\n', a + 1)
  const c = record.indexOf('\n', b + 1)
  const d = record.indexOf('\n', c + 1)
  if (a < 0 || b < 0 || c < 0 || d < 0) throw new Error('corrupt job record')
  const groupId = record.slice(c + 1, d)
  const [version, writeToken] = record.slice(b + 1, c).split(':')
  return {
    queue: record.slice(0, a),
    createdAtMs: parseInt(record.slice(a + 1, b), 36),
    version: Number(version),
    ...(groupId ? { groupId } : {}),
    ...(writeToken ? { writeToken } : {}),
    payloadJson: record.slice(d + 1),
  }
}
