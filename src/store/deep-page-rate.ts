// How many deep pages of GET /jobs one caller may ask for: pages that start a walk's frontier (a copy of a shard's
// index), or read without one deep in a queue, cost Redis up to a copy and DEEP_PAGE_BUCKETS bucket reads per shard,
// where a page of a walk under way costs about as many reads as it shows jobs. Counted per caller in Redis, so the
// limit holds across API instances: the caller is who the API authorized (the IAM principal's ARN) or, without
// authorization, the source address; calls from code (DelayQueue, `sdq pending`, the dashboard) share one count.
import { createHash } from 'node:crypto'
import { DeepPagesLimitedError } from '../errors'
import type { Keyspace } from './keys'
import { runScript, type ScriptCall, type ScriptedClient } from './scripts'

/** Deep pages one caller may have per window. */
export const DEEP_PAGES_PER_WINDOW = 20
/** The window of DEEP_PAGES_PER_WINDOW, from the caller's first deep page. */
export const DEEP_PAGE_WINDOW_MS = 60_000

/** Who asks, as the count's key names it: a digest, so that no identity is written to Redis. */
const callerDigest = (caller: string) => createHash('sha256').update(caller).digest('hex').slice(0, 32)

/** lua/deep-page-rate.lua's verdict, the first element of its reply. */
export enum DeepPageVerdict {
  Allowed = 1,
  Limited = 0,
}

/** lua/deep-page-rate.lua: [1, ms left] when the page may go on, [0, ms left] when the caller is over its limit. */
export function deepPageRateCall(keys: Keyspace, caller: string, limit: number): ScriptCall<[number, number]> {
  return {
    script: 'sdqDeepPageRate',
    keys: { count: keys.deepPages(callerDigest(caller)) },
    args: { limit, windowMs: DEEP_PAGE_WINDOW_MS },
  }
}

/** Counts a deep page for `caller` (null: code calling the store directly); throws DeepPagesLimitedError when over. */
export async function countDeepPage(
  redis: ScriptedClient,
  keys: Keyspace,
  caller: string | null,
  limit = DEEP_PAGES_PER_WINDOW,
): Promise<void> {
  const [allowed, leftMs] = await runScript(redis, deepPageRateCall(keys, caller ?? '(in-process)', limit))
  if (allowed !== DeepPageVerdict.Allowed)
    throw new DeepPagesLimitedError(Math.max(1, Math.ceil(Number(leftMs) / 1000)))
}
