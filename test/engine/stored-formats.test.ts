// The stored encodings of a job's states, as the Lua scripts write them and src/store/job-state.ts reads them:
// they are stored with the jobs, so a change here would strand jobs already in Redis.
import { sleep } from '../../devkit/sleep'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { Leases } from '../../src/scan/claims/leases'
import { decodeCounterField, decodeDispatchError, decodeLease } from '../../src/store/job-state'
import type { ShardKeys } from '../../src/store/keys'
import { job, testStore } from '../support/engine'

// Each case its own keyspace: claims here take whatever is due or expired (no hints), and a job a failing case left
// waiting for its retry, or leased for 1 ms, would be claimed again by the next case.
let t: ReturnType<typeof testStore>
let leases: Leases
let shard: ShardKeys
beforeEach(() => {
  t = testStore({ shards: 1, buckets: 4 })
  leases = new Leases(t.redis, { leaseMs: 60_000, maxAttempts: 1, backoffBaseMs: 1, backoffMaxMs: 1 })
  shard = t.keys.shards[0]!
})
afterEach(() => t.close())

describe('stored formats', () => {
  it('keeps a lease as attempt:dueMs:token while it has no crash or fault, an empty token while waiting for a retry, and the error as JSON', async () => {
    // prepare
    const { dueMs } = await t.store.enqueue(job({ id: 'fmt-retry', queue: 'fmt' }))
    const [claimed] = (await leases.claim(shard, await leases.seedHints(shard, 4), 10)).jobs
    const held = decodeLease((await t.redis.hget(shard.leases, 'fmt-retry'))!)
    // act: SQS refused it, not as the job's fault (so it waits for a retry instead of dying on its last attempt)
    await leases.release(shard, [{ ...claimed!, error: 'SQS throttled', jobsFault: false }])
    // assess
    expect(await t.redis.hget(shard.leases, 'fmt-retry')).toBe(`1:${dueMs}:`)
    expect(held).toEqual({ attempt: 1, dueMs, recoveries: 0, faults: 0, token: claimed!.token })
    expect(decodeLease((await t.redis.hget(shard.leases, 'fmt-retry'))!)).toEqual({
      attempt: 1,
      dueMs,
      recoveries: 0,
      faults: 0,
      token: '',
    })
    expect(decodeDispatchError((await t.redis.hget(shard.errors, 'fmt-retry'))!)).toMatchObject({
      attempts: 1,
      message: 'SQS throttled',
    })
    expect((await t.store.get('fmt-retry'))?.status).toBe('scheduled')
  })

  it('counts per queue in fields "<queue>|<counter>", queue names with "|" included', async () => {
    // prepare
    await t.store.enqueue(job({ id: 'fmt-count-1', queue: 'a|b', due: { delayMs: 60_000 } }))
    await t.store.enqueue(job({ id: 'fmt-count-2', queue: 'a|b', due: { delayMs: 60_000 } }))
    // act
    await t.store.cancel('fmt-count-2')
    // assess
    const fields = Object.entries(await t.redis.hgetall(shard.counts)).map(([f, n]) => ({
      ...decodeCounterField(f),
      n,
    }))
    expect(fields).toContainEqual({ queue: 'a|b', counter: 'pending', n: '1' })
  })

  it('adds the crash and fault counters to a lease only once one of them is not 0', async () => {
    // prepare: a job released once for its own fault, then leased again and lost (its scanner died)
    const counting = new Leases(t.redis, { leaseMs: 1, maxAttempts: 5, backoffBaseMs: 1, backoffMaxMs: 1 })
    const { dueMs } = await t.store.enqueue(job({ id: 'fmt-counted', queue: 'fmt' }))
    const first = (await counting.claim(shard, await counting.seedHints(shard, 4), 10)).jobs.find(
      (j) => j.id === 'fmt-counted',
    )
    await counting.release(shard, [{ ...first!, error: 'SenderFault', retryInMs: 0 }])
    await counting.claim(shard, [], 10)
    await sleep(5)
    // act: the lease expired: the next claim recovers it
    const recovered = (await counting.claim(shard, [], 10)).jobs.find((j) => j.id === 'fmt-counted')
    // assess
    expect(await t.redis.hget(shard.leases, 'fmt-counted')).toBe(`3:${dueMs}:1:1:${recovered!.token}`)
    expect(decodeLease(`3:${dueMs}:1:1:${recovered!.token}`)).toEqual({
      attempt: 3,
      dueMs,
      recoveries: 1,
      faults: 1,
      token: recovered!.token,
    })
    await leases.ack(shard, [recovered!])
  })
})

describe('leases written before the crash and fault counters existed', () => {
  // Written the way the previous engine wrote them: "<attempt>:<dueMs>:<token>", the attempt counting every claim.
  let counting: Leases
  beforeEach(() => {
    counting = new Leases(t.redis, { leaseMs: 60_000, maxAttempts: 10, backoffBaseMs: 1, backoffMaxMs: 1 })
  })
  async function leasedByOldEngine(id: string, attempt: number, token: string, scoreMs: number): Promise<number> {
    const { dueMs } = await t.store.enqueue(job({ id, queue: 'fmt', due: { delayMs: 0 } }))
    // the old engine's claim: out of the due bucket, into inflight with its lease
    const { bucket, bucketNo } = t.keys.locate(id)
    await t.redis.zrem(bucket, id)
    if ((await t.redis.zcard(bucket)) === 0) await t.redis.zrem(shard.index, bucketNo)
    await t.redis.zadd(shard.inflight, scoreMs, id)
    await t.redis.hset(shard.leases, id, `${attempt}:${dueMs}:${token}`)
    return dueMs
  }

  it('recovers a job whose old lease expired on its 9th of 10 attempts, instead of dead-lettering it', async () => {
    // prepare: 8 transient retries and a 9th claim, then its scanner died (old encoding, lease expired)
    const dueMs = await leasedByOldEngine('old-expired', 9, 'oldtoken0001', 0)
    // act
    const { jobs } = await counting.claim(shard, [], 10)
    // assess: taken again as attempt 10, one crash recovery, no fault; not dead
    const taken = jobs.find((j) => j.id === 'old-expired')
    expect(taken?.attempt).toBe(10)
    expect(decodeLease((await t.redis.hget(shard.leases, 'old-expired'))!)).toEqual({
      attempt: 10,
      dueMs,
      recoveries: 1,
      faults: 0,
      token: taken!.token,
    })
    expect((await t.store.get('old-expired'))?.status).toBe('dispatching')
    await counting.ack(shard, [taken!])
  })

  it('lets a scanner ack a job leased under the old encoding, and retries one released under it', async () => {
    // prepare: one job held by a live scanner of the old engine, one released by it for a retry on its 9th attempt
    await leasedByOldEngine('old-held', 2, 'oldtoken0002', Date.now() + 60_000)
    await leasedByOldEngine('old-retry', 9, '', 0)
    // act
    const acked = await counting.ack(shard, [{ id: 'old-held', token: 'oldtoken0002' }])
    const retry = (await counting.claim(shard, [], 10)).jobs.find((j) => j.id === 'old-retry')
    const refused = await counting.release(shard, [
      { ...retry!, error: 'SenderFault: bad attribute', retryInMs: 60_000 },
    ])
    // assess: acked; retried as attempt 10, and its first fault under the new count does not kill it
    expect(acked).toBe(1)
    expect(await t.store.get('old-held')).toBeNull()
    expect(retry?.attempt).toBe(10)
    expect(refused).toMatchObject({ released: 1, dead: 0, retired: 0 })
    expect(decodeLease((await t.redis.hget(shard.leases, 'old-retry'))!)).toMatchObject({
      attempt: 10,
      faults: 1,
      token: '',
    })
  })
})
