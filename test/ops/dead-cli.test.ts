// `npm run sdq -- dead list / retry` as an operator types it, over a dead set with jobs of two queues: the list
// prints each job with its whole payload, as it always has, and `retry --all --queue` revives that queue's only.
import { afterAll, describe, expect, it } from 'vitest'
import { Leases } from '../../src/scan/claims/leases'
import { job } from '../support/engine'
import { cliStage, jsonLines, runSdq } from '../support/sdq-cli'

const { t, env } = cliStage('dead-cli', ['orders', 'emails'])
afterAll(() => t.close())

const sdq = async (...args: string[]) => jsonLines(await runSdq(env, ...args))

describe('sdq dead', () => {
  it('lists a queue’s dead jobs with their whole payload, and retries only that queue’s', async () => {
    // prepare: 2 orders jobs and 3 emails jobs refused by SQS until they died
    const shard = t.keys.shards[0]!
    const leases = new Leases(t.redis, { leaseMs: 60_000, maxAttempts: 1, backoffBaseMs: 1, backoffMaxMs: 1 })
    const payload = { note: 'x'.repeat(2_000) }
    for (let i = 0; i < 5; i++) {
      const queue = i < 2 ? 'orders' : 'emails'
      await t.store.enqueue(job({ id: `cli-dead-${i}`, queue, payloadJson: JSON.stringify(payload) }))
    }
    const { jobs } = await leases.claim(shard, await leases.seedHints(shard, 10), 10)
    await leases.release(
      shard,
      jobs.map((j) => ({ ...j, error: 'QueueDoesNotExist' })),
    )
    // act
    const listed = await sdq('dead', 'list', '--queue', 'orders')
    const retried = await sdq('dead', 'retry', '--all', '--queue', 'orders')
    // assess: the list as it always was (fields in this order, the payload whole) ...
    expect(listed.map((j) => j.id).sort()).toEqual(['cli-dead-0', 'cli-dead-1'])
    expect(Object.keys(listed[0])).toEqual(['id', 'queue', 'payload', 'createdAt', 'diedAt', 'lastError'])
    expect(listed[0]).toMatchObject({
      queue: 'orders',
      payload,
      lastError: { attempts: 1, message: 'QueueDoesNotExist' },
    })
    // ... and the retry took the orders jobs only
    expect(retried.at(-1)).toEqual({ retried: 2 })
    expect((await t.store.get('cli-dead-0'))!.status).toBe('scheduled')
    expect((await t.store.get('cli-dead-2'))!.status).toBe('dead')
    expect((await t.store.stats()).queues).toMatchObject({ orders: { dead: 0, pending: 2 }, emails: { dead: 3 } })
  })

  it('refuses a retry delay past the job horizon, naming the flag, and revives nothing', async () => {
    // prepare: a job dead on its first refusal
    const shard = t.keys.shards[0]!
    const leases = new Leases(t.redis, { leaseMs: 60_000, maxAttempts: 1, backoffBaseMs: 1, backoffMaxMs: 1 })
    await t.store.enqueue(job({ id: 'cli-far', queue: 'orders' }))
    const { jobs } = await leases.claim(shard, await leases.seedHints(shard, 10), 10)
    await leases.release(
      shard,
      jobs.filter((j) => j.id === 'cli-far').map((j) => ({ ...j, error: 'QueueDoesNotExist' })),
    )
    // act: a delay in microseconds, as a typo would give
    const refused = await runSdq(env, 'dead', 'retry', 'cli-far', '--delay-ms', '1795648056156000')
    // assess
    expect(refused.code).toBe(2)
    expect(refused.stderr).toMatch(/--delay-ms must be at most 34560000000 \(MAX_HORIZON_DAYS/)
    expect((await t.store.get('cli-far'))!.status).toBe('dead')
  })
})
