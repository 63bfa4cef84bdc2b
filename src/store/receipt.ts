// A dispatch receipt: what is kept of a job once SQS accepted it, so that a lookup by id can still answer "did it
// fire, when, and as which message?" for a retention time (DISPATCH_RECEIPT_TTL_MS). Written by lua/ack.lua in the
// same script that forgets the job, into the shard's hash for the hour of the ack (src/store/keys.ts), stored as
//
//   "<attempts>:<due ms, base 36>:<accepted - due ms, base 36, signed>:<SQS message id>:<queue>:<due - created ms, base 36>"
//   [":<version, base 36><write token digest: 8 hex>"]
//
// (the queue never holds ":"). The last field only for a job whose last write sent a token (an Idempotency-Key): a later attempt of that write finds it
// here and is answered as applied instead of creating the job again (lua/enqueue.lua, receiptToken). A digest, not
// the token: Redis keeps a receipt hash compact (listpack) only while every receipt is at most 64 bytes, and the
// 22-character key would push a common receipt (~50 bytes) past that, and with it the whole hash to ~140 bytes a
// receipt. 8 hex digits (32 bits) of SHA-1: another write of the same id taken for this one is a 1 in 4 billion chance.
// Not shorter: 6 base64url characters would carry 36 bits in 2 bytes less, but Lua has no base64 (redis.sha1hex is
// hex) and 2 bytes are 2 more characters of queue name; the version is one character until the 36th replace, as a
// created / replaced flag would be (a replay answers 201 or 200 by it). Queue-name limits: docs/cluster.md.
// No request digest (the record keeps one with the token: lua/includes/requestDigest.lua): 5 bytes more would take a
// keyed receipt past 64 bytes from a 7-character queue name on. A token sent again with another request once its job
// was dispatched is told apart by its queue alone (lua/enqueue.lua); otherwise it is answered as the write it repeats.
// The message id's UUID is kept as 22 characters of base64url, and no payload. Compact on purpose: a receipt of a 20-character
// id is ~75 bytes of Redis memory (docs/sizing in docs/operations.md). The scanner encodes it (it holds every field
// from the claim and the send), so the ack script only stores it.
import { createHash } from 'node:crypto'
import { RECEIPT_HOUR_MS } from './keys'

export interface DispatchReceipt {
  /** Dispatch attempts it took (1: SQS took the first send). */
  attempts: number
  /** When it was due (ms). */
  dueMs: number
  /** When SQS accepted it (Redis's clock as the scanner measured it, ms). */
  acceptedAtMs: number
  /** The SQS message id SendMessageBatch answered. */
  messageId: string
  /** The target queue's name. */
  queue: string
  /** When the job (this incarnation) was created, ms. */
  createdAtMs: number
  /** The job's version (0: created, not replaced since) and its last write's token digest, when it sent a token. */
  written?: { version: number; tokenDigest: string }
}

/** The part of a write token a receipt keeps (lua/enqueue.lua computes the same with redis.sha1hex). */
export function writeTokenDigest(writeToken: string): string {
  return createHash('sha1').update(writeToken).digest('hex').slice(0, 8)
}

/** The 16 bytes of a UUID message id, filled by compactUuid (one buffer: an ack encodes a receipt per job). */
const uuidBytes = Buffer.alloc(16)

/** A lowercase hex digit's value, or -1. */
function hexDigit(code: number): number {
  if (code >= 48 && code <= 57) return code - 48
  if (code >= 97 && code <= 102) return code - 87
  return -1
}

/**
 * A UUID in its canonical form (8-4-4-4-12 lowercase hex digits) as 22 characters of base64url; null for any other
 * text. Read digit by digit: no pattern test, no copy without the dashes, no buffer per receipt.
 */
function compactUuid(text: string): string | null {
  if (text.length !== 36) return null
  let byte = 0
  for (let i = 0; i < 36; i++) {
    if (i === 8 || i === 13 || i === 18 || i === 23) {
      if (text.charCodeAt(i) !== 45) return null
      continue
    }
    const high = hexDigit(text.charCodeAt(i))
    const low = hexDigit(text.charCodeAt(++i))
    if (high < 0 || low < 0) return null
    uuidBytes[byte++] = high * 16 + low
  }
  return uuidBytes.toString('base64url')
}

/**
 * Numbers in base 36, memoized: an ack's receipts mostly share their due time, lateness and age (a burst's jobs are
 * due together and accepted in batches), and toString(36) was a good part of encoding one.
 */
const base36Cache = new Map<number, string>()

function base36(n: number): string {
  let s = base36Cache.get(n)
  if (s === undefined) {
    if (base36Cache.size >= 4096) base36Cache.clear()
    s = n.toString(36)
    base36Cache.set(n, s)
  }
  return s
}

export function encodeReceipt(r: DispatchReceipt): string {
  const id = compactUuid(r.messageId) ?? r.messageId.replaceAll(':', '')
  const late = Math.round(r.acceptedAtMs - r.dueMs)
  const created = base36(Math.round(r.dueMs - r.createdAtMs))
  const written = r.written ? `:${r.written.version.toString(36)}${r.written.tokenDigest}` : ''
  return `${r.attempts}:${base36(r.dueMs)}:${base36(late)}:${id}:${r.queue}:${created}${written}`
}

export function decodeReceipt(text: string): DispatchReceipt {
  const m = /^(\d+):([0-9a-z]+):(-?[0-9a-z]+):([^:]*):([^:]*):(-?[0-9a-z]+)(?::([0-9a-z]+)([0-9a-f]{8}))?$/s.exec(text)
  if (!m) throw new Error(`corrupt dispatch receipt: ${text}`)
  const dueMs = parseInt(m[2]!, 36)
  let messageId = m[4]!
  if (/^[A-Za-z0-9_-]{22}$/.test(messageId)) {
    const hex = Buffer.from(messageId, 'base64url').toString('hex')
    messageId = `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`
  }
  return {
    attempts: Number(m[1]),
    dueMs,
    acceptedAtMs: dueMs + parseInt(m[3]!, 36),
    messageId,
    queue: m[5]!,
    createdAtMs: dueMs - parseInt(m[6]!, 36),
    ...(m[8] === undefined ? {} : { written: { version: parseInt(m[7]!, 36), tokenDigest: m[8] } }),
  }
}

/** The hour a receipt written at `ms` goes to. */
export function receiptHour(ms: number): number {
  return Math.floor(ms / RECEIPT_HOUR_MS)
}

/**
 * When the hash of `hour` expires: a retention after the hour ends, so each receipt is kept at least `ttlMs` (and up
 * to an hour more).
 */
export function receiptExpiry(hour: number, ttlMs: number): number {
  return (hour + 1) * RECEIPT_HOUR_MS + ttlMs
}

/**
 * The hours whose hashes may hold a receipt still kept at `nowMs`, newest first (the newest receipt of an id wins: it
 * was enqueued again and dispatched again). One more hour either side covers clocks a little apart.
 */
export function receiptHours(nowMs: number, ttlMs: number): number[] {
  if (ttlMs <= 0) return []
  const hours: number[] = []
  for (let h = receiptHour(nowMs) + 1; h >= receiptHour(nowMs - ttlMs) - 1; h--) hours.push(h)
  return hours
}
