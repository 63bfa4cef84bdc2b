// A rate so small that its interval leaves the numbers Redis's scripts can hold (1e-17 jobs/s: one every 3 billion
// years) made every claim of a shard with a due job of the key fail ("value is not an integer or out of range": the
// pace's expiry, lua/includes/flowPace.lua) after it had leased the claim's jobs, and the key's bucket call fail
// (lua/flow-take.lua): the shard's jobs, of every queue, came back at each lease's end, toward the dead set. The input
// is refused below MIN_RATE, and a rate stored below it (an older client's) is read as MIN_RATE. Script level, on one
// Redis and, in the "cluster" project, on the Redis Cluster.
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { FlowControl } from '../../src/direct/flow-control'
import { ValidationError } from '../../src/errors'
import { FlowGate } from '../../src/flow/flow-gate'
import { MIN_RATE } from '../../src/flow/flow-names'
import { readFlowSettings, setFlowRate } from '../../src/flow/flow-settings'
import { Leases } from '../../src/scan/claims/leases'
import { job, testStore } from '../support/engine'

let t: ReturnType<typeof testStore>
beforeEach(async () => {
  t = testStore({ shards: 1 })
  await t.redis.ping()
})
afterEach(() => t.close())

describe('a rate too small to count in', () => {
  it('is refused, naming the rate, and changes nothing', async () => {
    // prepare
    const flow = new FlowControl(t.store, { queues: ['orders'] } as never)
    // act
    const refused = await flow.change({ flowKey: 'mail' }, { rate: 1e-17 }).catch((e: unknown) => e)
    // assess
    expect(refused).toBeInstanceOf(ValidationError)
    expect((refused as ValidationError).details.map((d) => d.path)).toEqual(['rate'])
    expect((await readFlowSettings(t.redis, t.keys)).rates.size).toBe(0)
    await expect(flow.change({ flowKey: 'mail' }, { rate: MIN_RATE })).resolves.toMatchObject({ rate: MIN_RATE })
  })

  it('stored by an older client, holds the key to MIN_RATE and lets the claims of its shard run', async () => {
    // prepare: the rate written without validation; two jobs of the key and one of another due
    await setFlowRate(t.redis, t.keys, { flowKey: 'mail' }, { rate: 1e-17, burst: 1 })
    await t.store.enqueueMany([
      job({ id: 'mail-1', flowKey: 'mail' }),
      job({ id: 'mail-2', flowKey: 'mail' }),
      job({ id: 'other' }),
    ])
    const gate = new FlowGate({ redis: t.redis, keys: t.keys })
    await gate.reload()
    const leases = new Leases(t.redis, { leaseMs: 30_000, maxAttempts: 3, backoffBaseMs: 50, backoffMaxMs: 50 })
    const shard = t.keys.shards[0]!
    // act
    const hints = await leases.seedHints(shard, 10)
    const claimed = await leases.claim(shard, hints, 10, undefined, { paces: gate.paceSpec(), epochWanted: false })
    // assess: one of the key's jobs and the other job handed back; the key's other job held 1 / MIN_RATE s out
    const handed = claimed.jobs.map((j) => j.id)
    expect(handed).toHaveLength(2)
    expect(handed).toContain('other')
    const held = ['mail-1', 'mail-2'].find((id) => !handed.includes(id))!
    const heldUntil = Number(await t.redis.zscore(shard.inflight, held))
    expect(heldUntil - claimed.redisNowMs).toBeGreaterThanOrEqual(1_000 / MIN_RATE - 1)
    expect(heldUntil - claimed.redisNowMs).toBeLessThanOrEqual(1_000 / MIN_RATE + 1)
  })
})
