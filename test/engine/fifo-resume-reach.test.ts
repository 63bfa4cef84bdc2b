// A resume reaches the shards one by one (lua/flow-resume.lua writes a shard's epoch once its held jobs are back), and
// a FIFO job of a shard it reached waits until every other shard is claimed under the resume too (FlowGate.behind,
// FifoMerge.forgetReach): a job of its group held on a shard not reached yet comes before it. An idle claim returns
// its shard's epoch only when the scanner asks (lua/claim.lua epochWanted, in the 2 s after a reload), so a claim sent
// before the scanner read the resume and answered after it carries none: it ran before the resume and tells nothing of
// how far its shard is claimed. Date alone is faked (the 2 s window); Redis runs as usual.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { FlowGate } from '../../src/flow/flow-gate'
import { Leases } from '../../src/scan/claims/leases'
import { FifoHold } from '../../src/scan/loop/fifo-hold'
import { InFlight } from '../../src/scan/loop/in-flight'
import type { ShardKeys } from '../../src/store/keys'
import { runScript } from '../../src/store/scripts'
import { flowEpochCall } from '../../src/store/scripts/flow-epoch'
import { flowSetCall } from '../../src/store/scripts/flow-set'
import { groupJob, testStore } from '../support/engine'

let t: ReturnType<typeof testStore>
let leases: Leases
beforeEach(async () => {
  t = testStore({ shards: 2 })
  leases = new Leases(t.redis, { leaseMs: 30_000, maxAttempts: 3, backoffBaseMs: 50, backoffMaxMs: 50 })
  await t.redis.ping()
  vi.useFakeTimers({ toFake: ['Date'] })
})
afterEach(async () => {
  vi.useRealTimers()
  await t.close()
})

/** A claim as the scanner makes it (src/scan/loop/scanner.ts claimStep): it asks the epoch while the gate catches up. */
async function claim(shard: ShardKeys, gate: FlowGate) {
  const hints = await leases.seedHints(shard, 10)
  return leases.claim(shard, hints, 10, undefined, { paces: gate.paceSpec(), epochWanted: gate.catchingUp() })
}

/** Writes one setting and tells `shards` its epoch (the others stay behind, as a resume on its way leaves them). */
async function setting(field: string, value: string | null, shards: readonly ShardKeys[]) {
  const epoch = String(await runScript(t.redis, flowSetCall(t.keys, field, value)))
  for (const s of shards) await runScript(t.redis, flowEpochCall(s, epoch))
}

describe('a resume on its way to the shards', () => {
  it('a claim sent before the scanner read the resume and answered after it does not count as its shard claimed', async () => {
    // prepare: events.fifo paused everywhere, the scanner's gate read it over 2 s ago
    const [first, second] = t.keys.shards as [ShardKeys, ShardKeys]
    await setting('p:q:events.fifo', '1', t.keys.shards)
    const gate = new FlowGate({ redis: t.redis, keys: t.keys })
    await gate.reload()
    vi.setSystemTime(Date.now() + 3_000)
    const fifo = new FifoHold(
      t.keys.shards.map((keys) => ({ keys, hints: [], sleepingUntil: 0 })),
      new InFlight(100),
      gate,
    )
    // a later job of the group falls due on the first shard (its earlier job is held on the second for the pause)
    let n = 0
    while (t.keys.locate(`evt-${n}`).shard.shard !== first.shard) n++
    const [sec] = await t.redis.time()
    await t.store.enqueueMany([groupJob(n, Number(sec) * 1000 - 1_000)])
    // the second shard's claim leaves, idle; the resume then reaches the first shard only
    const early = claim(second, gate)
    await setting('p:q:events.fifo', null, [first])

    // act: the first shard's claim brings the job and the resume's epoch (the scanner reads the settings again); then
    // the second shard's claim, sent before that, answers
    const brought = await claim(first, gate)
    expect(brought.jobs.map((j) => j.id)).toEqual([`evt-${n}`])
    if (gate.stale(brought.flowEpoch)) await gate.reload()
    const sentFirst = fifo.take(first.shard, brought)
    const answered = await early
    const sentEarly = fifo.take(second.shard, answered)

    // assess: the job waits for a claim of the second shard under the resume
    expect(sentFirst).toEqual([])
    expect(sentEarly).toEqual([])
    const behind = await claim(second, gate)
    expect(fifo.take(second.shard, behind)).toEqual([])
    await runScript(t.redis, flowEpochCall(second, brought.flowEpoch!))
    const reached = await claim(second, gate)
    expect(fifo.take(second.shard, reached).map((j) => j.id)).toEqual([`evt-${n}`])
  })
})
