// The flow settings' version a claim returns (lua/claim.lua, flowEpoch): with every claim that brings jobs, so a
// scanner never sends them under settings older than a pause that has answered; from a claim that brings nothing only
// when the scanner asks (shortly after it read newer settings), so an idle shard's claim, which every scanner makes
// once a poll interval all day, runs no command for it (the idle row of `npm run bench` counts them).
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { flowEpochCall } from '../../src/store/scripts/flow-epoch'
import { Leases } from '../../src/scan/claims/leases'
import type { ShardKeys } from '../../src/store/keys'
import { runScript } from '../../src/store/scripts'
import { job, testStore } from '../support/engine'

let t: ReturnType<typeof testStore>
let leases: Leases
let shard: ShardKeys
beforeEach(async () => {
  t = testStore({ shards: 1 })
  leases = new Leases(t.redis, { leaseMs: 30_000, maxAttempts: 3, backoffBaseMs: 50, backoffMaxMs: 50 })
  shard = t.keys.shards[0]!
  await runScript(t.redis, flowEpochCall(shard, '7'))
})
afterEach(() => t.close())

const claim = async (epochWanted: boolean) =>
  leases.claim(shard, await leases.seedHints(shard, 10), 10, undefined, { paces: '', epochWanted })

describe('the flow epoch a claim returns', () => {
  it('an idle claim (jobs pending, none due) reads no epoch unless asked', async () => {
    // prepare: a job due in an hour
    await t.store.enqueueMany([job({ due: { delayMs: 3_600_000 } })])

    // act
    const idle = await claim(false)
    const asked = await claim(true)

    // assess (npm run bench counts the idle scanner's commands)
    expect(idle.jobs).toHaveLength(0)
    expect(idle.flowEpoch).toBeUndefined()
    expect(asked.flowEpoch).toBe('7')
  })

  it('a claim that brings jobs always carries the epoch', async () => {
    await t.store.enqueueMany([job()])

    const r = await claim(false)

    expect(r.jobs).toHaveLength(1)
    expect(r.flowEpoch).toBe('7')
  })
})
