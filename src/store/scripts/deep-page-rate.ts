// lua/deep-page-rate.lua's whole contract on the TypeScript side: the call (KEYS and ARGV by name, in the header's
// order), its verdicts (DeepPageVerdict) and the reply read (decodeDeepPageRate).
import { createHash } from 'node:crypto'
import type { Keyspace } from '../keys'
import type { ScriptCall } from '../scripts'

/** The window a caller's deep pages are counted in, from its first deep page. */
export const DEEP_PAGE_WINDOW_MS = 60_000

/** Who asks, as the count's key names it: a digest, so that no identity is written to Redis. */
const callerDigest = (caller: string) => createHash('sha256').update(caller).digest('hex').slice(0, 32)

/** lua/deep-page-rate.lua's verdict, the first element of its reply. */
export enum DeepPageVerdict {
  Allowed = 1,
  Limited = 0,
}

/** lua/deep-page-rate.lua: [DeepPageVerdict, ms left]. Read it with decodeDeepPageRate. */
export type DeepPageRateReply = [number, number]

/** lua/deep-page-rate.lua: [1, ms left] when the page may go on, [0, ms left] when the caller is over its limit. */
export function deepPageRateCall(keys: Keyspace, caller: string, limit: number): ScriptCall<DeepPageRateReply> {
  return {
    script: 'sdqDeepPageRate',
    keys: { count: keys.deepPages(callerDigest(caller)) },
    args: { limit, windowMs: DEEP_PAGE_WINDOW_MS },
  }
}

/** A deep-page count's reply, read: the verdict, and how long until the caller's window ends (ms). */
export function decodeDeepPageRate(reply: DeepPageRateReply): { verdict: DeepPageVerdict; leftMs: number } {
  const [verdict, leftMs] = reply
  return { verdict, leftMs: Number(leftMs) }
}
