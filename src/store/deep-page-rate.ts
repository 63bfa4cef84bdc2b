// How many deep pages of GET /jobs one caller may ask for: pages that start a walk's frontier (a copy of a shard's
// index), or read without one deep in a queue, cost Redis up to a copy and DEEP_PAGE_BUCKETS bucket reads per shard,
// where a page of a walk under way costs about as many reads as it shows jobs. Counted per caller in Redis, so the
// limit holds across API instances: the caller is who the API authorized (the IAM principal's ARN) or, without
// authorization, the source address; calls from code (DelayQueue, `sdq pending`, the dashboard) share one count.
import { DeepPagesLimitedError } from '../errors'
import type { Keyspace } from './keys'
import { runScript, type ScriptedClient } from './scripts'
import { DeepPageVerdict, decodeDeepPageRate, deepPageRateCall } from './scripts/deep-page-rate'

/** Deep pages one caller may have per window (DEEP_PAGE_WINDOW_MS, in src/store/scripts/deep-page-rate.ts). */
export const DEEP_PAGES_PER_WINDOW = 20

/** Counts a deep page for `caller` (null: code calling the store directly); throws DeepPagesLimitedError when over. */
export async function countDeepPage(
  redis: ScriptedClient,
  keys: Keyspace,
  caller: string | null,
  limit = DEEP_PAGES_PER_WINDOW,
): Promise<void> {
  const { verdict, leftMs } = decodeDeepPageRate(
    await runScript(redis, deepPageRateCall(keys, caller ?? '(in-process)', limit)),
  )
  if (verdict !== DeepPageVerdict.Allowed) throw new DeepPagesLimitedError(Math.max(1, Math.ceil(leftMs / 1000)))
}
