// Run now of a job that is pending but in no due bucket: one waiting for a dispatch retry (SQS refused its send) is
// retried now; one flow control holds (a pause, a rate) is refused with what holds it, and stays held: its resume or
// its rate lets it go. A job a scanner holds stays refused as being dispatched.
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { runNow } from '../../src/direct/run-now'
import { groupCellMs } from '../../src/flow/flow-gate'
import { paceSpec } from '../../src/flow/flow-pace'
import { setFlowRate } from '../../src/flow/flow-settings'
import { JobDispatchingError, JobHeldError } from '../../src/errors'
import { Leases } from '../../src/scan/claims/leases'
import type { ShardKeys } from '../../src/store/keys'
import { Promoter } from '../../src/store/promote'
import { job, testStore } from '../support/engine'

const MINUTE = 60_000
let t: ReturnType<typeof testStore>
let leases: Leases
let shard: ShardKeys
beforeEach(() => {
  t = testStore({ shards: 1, buckets: 4 })
  // A refused send is retried 30-60 s later: long enough that only run now brings it back in the test.
  leases = new Leases(t.redis, { leaseMs: 10_000, maxAttempts: 5, backoffBaseMs: MINUTE, backoffMaxMs: MINUTE })
  shard = t.keys.shards[0]!
})
afterEach(() => t.close())

async function claim(paces = '') {
  const r = await leases.claim(shard, await leases.seedHints(shard, 100), 100, undefined, { paces, epochWanted: false })
  return r.jobs
}

describe('run now of a job in no due bucket', () => {
  it('retries a job waiting for a dispatch retry now, its attempts kept', async () => {
    // prepare: claimed, refused by SQS, waiting a minute for its retry
    await t.store.enqueue(job({ id: 'refused' }))
    const [claimed] = await claim()
    await leases.release(shard, [{ ...claimed!, error: 'SQS said no', jobsFault: false }])
    const retryAt = Number(await t.redis.zscore(shard.inflight, 'refused'))
    expect(await claim()).toEqual([])

    // act
    const moved = await new Promoter(t.store).promote('refused')

    // assess: due now instead of a minute from now, and the next claim takes it as its second attempt
    expect(moved.previousRunAtMs).toBe(retryAt)
    expect(retryAt - moved.runAtMs).toBeGreaterThan(MINUTE / 2 - 5_000) // (the backoff is jittered: half to all of it)
    const [again] = await claim()
    expect(again).toMatchObject({ id: 'refused', attempt: 2 })
  })

  it('refuses a job its rate holds, saying which rate, and leaves it held', async () => {
    // prepare: 3 jobs of key "slow" (1/s, burst 1) due now: one leaves, two are held for their pace
    await setFlowRate(t.redis, t.keys, { flowKey: 'slow' }, { rate: 1, burst: 1 })
    const paces = paceSpec(new Map([['k:slow', { rate: 1, burst: 1 }]]), groupCellMs, 1)
    await t.store.enqueueMany(['a', 'b', 'c'].map((id) => job({ id, flowKey: 'slow' })))
    const [left] = await claim(paces)
    const heldId = ['a', 'b', 'c'].find((id) => id !== left!.id)!
    const heldUntil = await t.redis.zscore(shard.inflight, heldId)

    // act
    const refusal = runNow(t.store, undefined, heldId)

    // assess: 409 naming the key's rate; its time in the inflight set unchanged
    await expect(refusal).rejects.toBeInstanceOf(JobHeldError)
    await expect(refusal).rejects.toThrow(/the rate of flow key "slow", until/)
    expect(await t.redis.zscore(shard.inflight, heldId)).toBe(heldUntil)
  })

  it('still refuses a job a scanner holds as being dispatched', async () => {
    await t.store.enqueue(job({ id: 'leased' }))
    await claim()

    await expect(new Promoter(t.store).promote('leased')).rejects.toBeInstanceOf(JobDispatchingError)
  })
})
