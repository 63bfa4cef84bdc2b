// Settling a claim tells the scanner when its earliest released job comes back (it plans its next wake by it). A
// retry time that is not a finite number is replaced by the attempt's backoff before release.lua sees it: the time
// the scanner plans by must be that replaced one, never NaN (a NaN wake time would never wake it for the retry).
import { afterAll, describe, expect, it } from 'vitest'
import type { ClaimedJob } from '../../src/scan/claims/claimed-job'
import { Leases } from '../../src/scan/claims/leases'
import { settleClaim } from '../../src/scan/claims/settle'
import { job, testStore } from '../support/engine'

const t = testStore()
afterAll(() => t.close())

/** Leases whose retry times are not finite numbers (as from a clock or a blocker's figure gone wrong). */
class UnmeasuredLeases extends Leases {
  override retryAt(): number {
    return Number.NaN
  }
}

describe('settleClaim', () => {
  it('answers the replaced retry time of a job whose own figure was not a finite number, never NaN', async () => {
    // prepare: a job claimed, then refused by SQS (not its fault)
    const backoff = { backoffBaseMs: 2_000, backoffMaxMs: 2_000 }
    const leases = new UnmeasuredLeases(t.redis, { leaseMs: 60_000, maxAttempts: 5, ...backoff })
    const shard = t.keys.shards[0]!
    await t.store.enqueue(job({ id: 'settle-nan', due: { delayMs: 0 } }))
    const { jobs } = await leases.claim(shard, await leases.seedHints(shard, 10), 10)
    const claimed = jobs.find((j) => j.id === 'settle-nan') as ClaimedJob
    let released = 0
    const hooks = {
      released: (_queue: string, n: number) => {
        released += n
      },
      redisError: () => {},
    }
    const before = Date.now()
    // act
    const retryAt = await settleClaim(
      leases,
      leases,
      shard,
      [],
      [{ job: claimed, error: 'throttled', jobsFault: false }],
      hooks,
    )
    // assess: the backoff drawn for it (half of 2 s kept, half drawn), on this process's clock
    expect(Number.isFinite(retryAt)).toBe(true)
    expect(retryAt).toBeGreaterThanOrEqual(before + 1_000 - 50)
    expect(retryAt).toBeLessThanOrEqual(Date.now() + 2_000 + 50)
    expect(released).toBe(1)
  })
})
