// Claims as a scanner makes them with flow control's pace (src/flow/flow-pace.ts), for the pace tests, and Redis's
// clock, which the pace times are on.
import { sleep } from '../../devkit/sleep'
import type { Leases } from '../../src/scan/claims/leases'
import type { ShardKeys } from '../../src/store/keys'
import type { RedisClient } from '../../src/store/scripts'

/** Redis's clock (TIME), ms. */
export async function redisNowMs(redis: RedisClient): Promise<number> {
  const [s, us] = await redis.time()
  return Number(s) * 1000 + Math.floor(Number(us) / 1000)
}

/** Waits until Redis's clock reads `ms` or later. */
export async function untilRedisMs(redis: RedisClient, ms: number): Promise<void> {
  for (let now = await redisNowMs(redis); now < ms; now = await redisNowMs(redis)) await sleep(ms - now)
}

/** One shard's claims of 250, paced by `paces`, hints carried along, until nothing is left due now: the ids handed back. */
export async function claimShardPaced(leases: Leases, shard: ShardKeys, paces: string): Promise<string[]> {
  const handed: string[] = []
  let hints = await leases.seedHints(shard, 250)
  for (;;) {
    const r = await leases.claim(shard, hints, 250, undefined, { paces, epochWanted: false })
    hints = r.hints
    handed.push(...r.jobs.map((j) => j.id))
    if (!r.again) return handed
  }
}
