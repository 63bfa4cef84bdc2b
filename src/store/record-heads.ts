// Records without their payloads (lua/record-heads.lua): what the operator tools need to count and list by queue,
// at a cost per call that does not grow with payload sizes. Only the header (queue, times, group) and at most
// `previewBytes` of each payload cross the network; in Redis, each call reads at most BUDGET_BYTES of records.
import { decodeRecordHeads, type RecordHead, recordHeadsCall } from './scripts/record-heads'
import { runScript, type ScriptedClient } from './scripts'

/** Ids per call: bounds the request, and what a call cut short by the budget sends again. */
const IDS_PER_CALL = 100
/** Bytes of records one call reads inside Redis (4 records of 1 MiB): keeps each script short. */
const BUDGET_BYTES = 4 * 1_048_576

export type { RecordHead }

/** The heads of `ids` in the hash `records` (a shard's jobs or schedules), in order; null where there is none. */
export async function readRecordHeads(
  redis: ScriptedClient,
  records: string,
  ids: readonly string[],
  options: { headerLines: number; previewBytes: number },
): Promise<(RecordHead | null)[]> {
  const heads: (RecordHead | null)[] = []
  while (heads.length < ids.length) {
    const batch = ids.slice(heads.length, heads.length + IDS_PER_CALL)
    const reply = await runScript(
      redis,
      recordHeadsCall(records, { ...options, budgetBytes: BUDGET_BYTES, ids: batch }),
    )
    heads.push(...decodeRecordHeads(reply))
  }
  return heads
}

/** A payload's first bytes as text, "…" when cut: a UTF-8 character cut in two is dropped, not shown as U+FFFD. */
export function previewText(payloadPart: string, payloadBytes: number, previewBytes: number): string {
  if (payloadBytes <= previewBytes) return payloadPart
  return `${payloadPart.replace(/\uFFFD+$/, '')}…`
}

/** A member of a sorted set whose score changes whenever its record may have (a lease, a death time). */
export interface ScoredId {
  id: string
  score: string
}

/**
 * Record heads remembered from one read to the next, by hash, id and score: a dead job's score is when it died, an
 * in-flight job's its lease expiry or retry time, and a record changes only with a new score. Heads read in Lua
 * cost Redis a copy of the whole record (about 1 ms per MiB measured), so a page that refreshes every 2 s reads each
 * record once, not once per refresh. It holds what the last read used, nothing older.
 */
export class RecordHeadCache {
  private last = new Map<string, RecordHead>()
  private current = new Map<string, RecordHead>()

  async read(
    redis: ScriptedClient,
    records: string,
    members: readonly ScoredId[],
    options: { headerLines: number; previewBytes: number },
  ): Promise<(RecordHead | null)[]> {
    const key = (m: ScoredId) => `${records}\n${m.id}\n${m.score}\n${options.previewBytes}`
    const found = new Map<string, RecordHead>()
    for (const m of members) {
      const head = this.current.get(key(m)) ?? this.last.get(key(m))
      if (head) found.set(key(m), head)
    }
    const missing = members.filter((m) => !found.has(key(m)))
    const read = await readRecordHeads(
      redis,
      records,
      missing.map((m) => m.id),
      options,
    )
    missing.forEach((m, i) => read[i] && found.set(key(m), read[i]!))
    for (const [k, head] of found) this.current.set(k, head)
    return members.map((m) => found.get(key(m)) ?? null)
  }

  /** After each refresh: what it did not use is forgotten. */
  endRead(): void {
    this.last = this.current
    this.current = new Map()
  }
}
