// The stored encodings of a job's states, as the Lua scripts write them and src/store/job-state.ts reads them:
// they are stored with the jobs, so a change here would strand jobs already in Redis.
import { afterAll, describe, expect, it } from 'vitest'
import { Leases } from '../../src/scan/leases'
import { decodeCounterField, decodeDispatchError, decodeLease } from '../../src/store/job-state'
import { job, testStore } from '../support/engine'

const t = testStore({ shards: 1, buckets: 4 })
const leases = new Leases(t.redis, { leaseMs: 60_000, maxAttempts: 1, backoffBaseMs: 1, backoffMaxMs: 1 })
const shard = t.keys.shards[0]!
afterAll(() => t.close())

describe('stored formats', () => {
  it('keeps a lease as attempt:dueMs:token, an empty token while waiting for a retry, and the error as JSON', async () => {
    // prepare
    const { dueMs } = await t.store.enqueue(job({ id: 'fmt-retry', queue: 'fmt' }))
    const [claimed] = (await leases.claim(shard, await leases.seedHints(shard, 4), 10)).jobs
    const held = decodeLease((await t.redis.hget(shard.leases, 'fmt-retry'))!)
    // act: SQS refused it, not as the job's fault (so it waits for a retry instead of dying on its last attempt)
    await leases.release(shard, [{ ...claimed!, error: 'SQS throttled', jobsFault: false }])
    // assess
    expect(held).toEqual({ attempt: 1, dueMs, token: claimed!.token })
    expect(decodeLease((await t.redis.hget(shard.leases, 'fmt-retry'))!)).toEqual({ attempt: 1, dueMs, token: '' })
    expect(decodeDispatchError((await t.redis.hget(shard.errors, 'fmt-retry'))!)).toMatchObject({
      attempts: 1,
      message: 'SQS throttled',
    })
    expect((await t.store.get('fmt-retry'))?.status).toBe('scheduled')
  })

  it('counts per queue in fields "<queue>|<counter>", queue names with "|" included', async () => {
    // prepare
    await t.store.enqueue(job({ id: 'fmt-count-1', queue: 'a|b', schedule: { delayMs: 60_000 } }))
    await t.store.enqueue(job({ id: 'fmt-count-2', queue: 'a|b', schedule: { delayMs: 60_000 } }))
    // act
    await t.store.cancel('fmt-count-2')
    // assess
    const fields = Object.entries(await t.redis.hgetall(shard.counts)).map(([f, n]) => ({ ...decodeCounterField(f), n }))
    expect(fields).toContainEqual({ queue: 'a|b', counter: 'pending', n: '1' })
  })
})
