// Run now by tag (src/store/tag-promote.ts): every pending job with a tag (due before a time, or all) made due now, in
// bounded steps over each shard's tag index that resume from a cursor; a job being sent is counted as in flight.
import { afterEach, describe, expect, it } from 'vitest'
import { Leases } from '../../src/scan/claims/leases'
import { promoteByTag } from '../../src/store/tag-promote'
import { job, testStore } from '../support/engine'

const HOUR = 3_600_000
const noReplicas = { replicas: 0, timeoutMs: 1_000 }
let t: ReturnType<typeof testStore>
afterEach(() => t.close())

const leasesOf = () => new Leases(t.redis, { leaseMs: 10_000, maxAttempts: 1, backoffBaseMs: 1, backoffMaxMs: 1 })
/** Every job a scanner could claim now, over all shards (claimed, so they leave the pending list). */
async function claimable(leases = leasesOf()): Promise<string[]> {
  const ids: string[] = []
  for (const shard of t.keys.shards) {
    const r = await leases.claim(shard, await leases.seedHints(shard, 2_000), 2_000)
    ids.push(...r.jobs.map((j) => j.id))
  }
  return ids.sort()
}
const byTag = (tag: string, o: Parameters<typeof promoteByTag>[4] = {}) =>
  promoteByTag(t.redis, t.keys, noReplicas, tag, o)

describe('run now by tag', () => {
  it('moves the jobs with the tag on every shard, and leaves other tags and untagged jobs', async () => {
    // prepare: 25 jobs of order 3 over the shards, beside jobs of order 4 and untagged ones
    t = testStore({ buckets: 8 })
    const mine = Array.from({ length: 25 }, (_, i) =>
      job({ id: `o3-${i}`, tags: ['order:3'], due: { delayMs: HOUR + i } }),
    )
    await t.store.enqueueMany([
      ...mine,
      job({ id: 'o4-a', tags: ['order:4'], due: { delayMs: HOUR } }),
      job({ id: 'plain', due: { delayMs: HOUR } }),
    ])
    // act: steps of 4 jobs
    const result = await byTag('order:3', { stepJobs: 4 })
    // assess
    expect(result).toEqual({ promoted: 25, inFlight: 0, cursor: null })
    expect(await claimable()).toEqual(mine.map((j) => j.id).sort())
  })

  it('moves only the jobs due before the time, and leaves one due already as it is', async () => {
    // prepare
    t = testStore({ shards: 1, buckets: 4 })
    await t.store.enqueueMany([
      job({ id: 'soon', tags: ['t'], due: { delayMs: HOUR } }),
      job({ id: 'late', tags: ['t'], due: { delayMs: 3 * HOUR } }),
      job({ id: 'now', tags: ['t'] }),
    ])
    // act
    const result = await byTag('t', { beforeMs: Date.now() + 2 * HOUR })
    // assess
    expect(result).toEqual({ promoted: 1, inFlight: 0, cursor: null })
    expect(await claimable()).toEqual(['now', 'soon'])
    expect((await t.store.get('late'))?.status).toBe('scheduled')
  })

  it('counts a job a scanner holds as in flight and leaves it to that scanner', async () => {
    // prepare: one job due now and claimed (being sent), one due in an hour
    t = testStore({ shards: 1, buckets: 4 })
    await t.store.enqueueMany([
      job({ id: 'held', tags: ['x'] }),
      job({ id: 'later', tags: ['x'], due: { delayMs: HOUR } }),
    ])
    const leases = leasesOf()
    expect(await claimable(leases)).toEqual(['held'])
    // act
    const result = await byTag('x')
    // assess
    expect(result).toEqual({ promoted: 1, inFlight: 1, cursor: null })
    expect((await t.store.get('held'))?.status).toBe('dispatching')
    expect(await claimable(leases)).toEqual(['later'])
  })

  it('stops after the runs it may make with a cursor, and the next call goes on from it to the end', async () => {
    // prepare: 2 shards, 30 jobs of the tag
    t = testStore({ shards: 2, buckets: 4 })
    const ids = Array.from({ length: 30 }, (_, i) => `r-${String(i).padStart(2, '0')}`)
    await t.store.enqueueMany(ids.map((id) => job({ id, tags: ['r'], due: { delayMs: HOUR } })))
    // act: one step of 4, then the rest from its cursor
    const first = await byTag('r', { stepJobs: 4, maxRuns: 1 })
    const rest = await byTag('r', { stepJobs: 4, cursor: first.cursor })
    // assess: one step moved its share only; together every job, each once
    expect(first.promoted).toBe(4)
    expect(first.cursor).toMatch(/^0\.r-\d\d$/)
    expect(rest).toEqual({ promoted: 26, inFlight: 0, cursor: null })
    expect(await claimable()).toEqual(ids)
    await expect(byTag('r', { cursor: '7.x' })).rejects.toThrow(/cursor/)
  })
})
