// lua/claim.lua's whole contract on the TypeScript side: the call (KEYS and ARGV by name, in the header's order) and
// the reply read into named fields (decodeClaim). The reply's positions are known here only: the scanner reads a
// claim by name.
import type { ShardKeys } from '../keys'
import type { ScriptCall } from '../scripts'
import { jobStateKeys } from './job-side-keys'

export interface ClaimParams {
  limit: number
  leaseMs: number
  token: string
  maxAttempts: number
  hintCap: number
  lookaheadMs: number
  /** With a dispatch window, the jobs that fill a SendMessageBatch: the reply's fullAt says when that many are due. */
  fullCount: number
  /** The previous reply's fullAt when the caller woke for a full request, else 0: the claim stops at that request. */
  fullBy: number
  /**
   * The dispatch window (with fullBy: jobs whose window has ended are taken whatever fullBy says, the earliest first,
   * within the full request's ten when fullBy is later than their window's end).
   */
  windowMs: number
  /** The rates a claim paces a burst by (src/flow/flow-pace.ts paceSpec); '' or absent: none. */
  paces?: string
  /** Return the flow settings' version even from a claim that leases and holds nothing (else only with jobs). */
  epochWanted?: boolean
  /** Bucket numbers the caller expects to be due: their keys go to KEYS, their numbers to ARGV. */
  hints: readonly string[]
}

/**
 * lua/claim.lua's reply as Redis sends it: { now, nextDue, needHints, more, hints joined by ',', flat jobs: id,
 * record, ..., nextInflight, fullAt, dueBy, the jobs' numbers joined by ',': dueMs, attempt, orderMs, ..., the flow
 * settings' version ('' from a claim that leased and held nothing, unless asked for), the jobs held for their pace
 * per rate name }. Read it with decodeClaim.
 */
export type ClaimReply = [
  number,
  number,
  number,
  number,
  string,
  string[],
  number,
  number,
  number,
  string,
  string,
  string?,
]

/** A claim's jobs of one rate name held for its pace: how many, and how long after its due time the latest leaves. */
export interface PacedJobs {
  name: string
  count: number
  latestLateMs: number
}

/** What one claim of a shard says, besides its jobs. */
export interface ClaimOutcome {
  /** Redis's clock when the claim ran. */
  redisNowMs: number
  /** Earliest time anything is due in this shard (including lease expiries and retries), or null. */
  nextDueMs: number | null
  /** Earliest lease expiry or retry time, or null: the dispatch window holds scheduled jobs only. */
  nextInflightMs: number | null
  /**
   * With a dispatch window: a time by which enough jobs are due to fill a SendMessageBatch, or null. The window
   * holds jobs to share a request; once a request's worth is due, holding them longer saves nothing.
   */
  fullAtMs: number | null
  /** Call again at once: the limit was reached, or a due bucket was missing from the hints. */
  again: boolean
  /** Redis ms: the claim took scheduled jobs due up to this time (its own now, or less for a full request). */
  dueByMs: number
  /** Buckets to bring to the next claim. */
  hints: string[]
  /** The flow settings' version on the shard (src/flow/flow-settings.ts): the scanner reads them again when it moves. */
  flowEpoch?: string
  /** Due jobs the claim held for their rate's pace (lua/includes/flowPace.lua), per rate name. */
  paced?: PacedJobs[]
}

/** A claimed job as the reply carries it: `each` gets its id, record and numbers. */
export type EachClaimed = (id: string, record: string, dueMs: number, attempt: number, orderMs: number) => void

/** A claim reply, read: its outcome, and its jobs in claim order (no object made per job: a claim carries 250). */
export interface DecodedClaim extends ClaimOutcome {
  forEachJob(each: EachClaimed): void
}

export function claimCall(shard: ShardKeys, p: ClaimParams): ScriptCall<ClaimReply> {
  return {
    script: 'sdqClaim',
    keys: {
      ...jobStateKeys(shard),
      flowEpoch: shard.flowEpoch,
      flowPace: shard.flowPace,
      buckets: p.hints.map((b) => shard.bucket(b)),
    },
    args: {
      limit: p.limit,
      leaseMs: p.leaseMs,
      token: p.token,
      maxAttempts: p.maxAttempts,
      hintCap: p.hintCap,
      lookaheadMs: p.lookaheadMs,
      fullCount: p.fullCount,
      fullBy: p.fullBy,
      windowMs: p.windowMs,
      paces: p.paces ?? '',
      epochWanted: p.epochWanted ? '1' : '0',
      bucketNos: p.hints,
    },
  }
}

export function decodeClaim(reply: ClaimReply): DecodedClaim {
  const [now, nextDue, needHints, more, hints, flat, nextInflight, fullAt, dueBy, numbers, flowEpoch, paced] = reply
  const redisNowMs = Number(now)
  return {
    redisNowMs,
    nextDueMs: Number(nextDue) < 0 ? null : Number(nextDue),
    nextInflightMs: Number(nextInflight) < 0 ? null : Number(nextInflight),
    fullAtMs: fullAt === undefined || Number(fullAt) < 0 ? null : Number(fullAt),
    again: needHints === 1 || more === 1,
    dueByMs: dueBy === undefined ? redisNowMs : Number(dueBy),
    hints: hints === '' ? [] : hints.split(','),
    flowEpoch: flowEpoch ? String(flowEpoch) : undefined,
    paced: parsePaced(paced),
    forEachJob(each) {
      if (flat.length === 0) return
      const n = numbers.split(',')
      for (let i = 0, j = 0; i < flat.length; i += 2, j += 3) {
        each(flat[i]!, flat[i + 1]!, Number(n[j]), Number(n[j + 1]), Number(n[j + 2]))
      }
    },
  }
}

/** The reply's paced jobs ("<name>\t<count>\t<latest late ms>\n" each). */
function parsePaced(text: string | undefined): PacedJobs[] {
  if (!text) return []
  return text
    .split('\n')
    .filter(Boolean)
    .map((row) => {
      const [name, count, late] = row.split('\t')
      return { name: name!, count: Number(count), latestLateMs: Number(late) }
    })
}
