// DelayQueue: applications enqueue from their own code, with the same rules as the HTTP API.
import { afterAll, describe, expect, it } from 'vitest'
import { DelayQueue } from '../../src/direct/delay-queue'
import { createEngine } from '../../src/store/engine'
import {
  JobDispatchingError,
  JobExistsError,
  JobNotFoundError,
  PayloadTooLargeError,
  ValidationError,
} from '../../src/errors'
import { Leases } from '../../src/scan/claims/leases'
import { QUEUES, testConfig } from './api-helpers'

const config = testConfig({ MAX_MESSAGE_BYTES: '2048' })
const queue = new DelayQueue(config)
afterAll(() => queue.close())

describe('DelayQueue', () => {
  it('schedules a job and looks it up', async () => {
    const job = await queue.schedule({ queue: 'orders', payload: { orderId: 7 }, delayMs: 60_000 })
    expect(job).toMatchObject({ queue: 'orders', status: 'scheduled' })
    expect(await queue.get(job.id)).toMatchObject({
      id: job.id,
      payload: { orderId: 7 },
      runAt: job.runAt,
      status: 'scheduled',
    })
  })

  it('refuses bad input with the same ValidationError as the API, before touching Redis', async () => {
    const error = await queue.schedule({ queue: 'orders', payload: 1, delayMs: -1 }).catch((e) => e)
    expect(error).toBeInstanceOf(ValidationError)
    expect(error.details).toEqual([{ path: 'delayMs', message: 'must be an integer >= 0' }])
    await expect(queue.schedule({ queue: 'orders', payload: 'x'.repeat(3_000) })).rejects.toBeInstanceOf(
      PayloadTooLargeError,
    )
    await expect(queue.get('bad id')).rejects.toBeInstanceOf(ValidationError)
  })

  it('refuses a taken id with JobExistsError carrying the existing job', async () => {
    await queue.schedule({ queue: 'orders', payload: 'first', id: 'c-dup' })
    const error = await queue.schedule({ queue: 'orders', payload: 'second', id: 'c-dup' }).catch((e) => e)
    expect(error).toBeInstanceOf(JobExistsError)
    expect(error.existing).toMatchObject({ id: 'c-dup', queue: 'orders', status: 'scheduled' })
    expect(error.existing).not.toHaveProperty('payload')
  })

  it('reschedules: creates, then replaces', async () => {
    const created = await queue.reschedule('c-up', { queue: 'orders', payload: 1, delayMs: 600_000 })
    const replaced = await queue.reschedule('c-up', { queue: 'orders', payload: 2, delayMs: 1_000 })
    expect([created.created, replaced.created]).toEqual([true, false])
    expect(Date.parse(replaced.runAt)).toBeLessThan(Date.parse(created.runAt))
    expect((await queue.get('c-up'))!.payload).toBe(2)
    await expect(queue.reschedule('c-up', { queue: 'orders', payload: 3, id: 'other' })).rejects.toBeInstanceOf(
      ValidationError,
    )
  })

  it('cancels, and a second cancel is JobNotFoundError', async () => {
    await queue.schedule({ queue: 'orders', payload: 1, id: 'c-cancel', delayMs: 60_000 })
    await queue.cancel('c-cancel')
    expect(await queue.get('c-cancel')).toBeNull()
    await expect(queue.cancel('c-cancel')).rejects.toBeInstanceOf(JobNotFoundError)
  })

  it('refuses to cancel a job a scanner is handing to SQS', async () => {
    const engine = createEngine(testConfig({ SHARDS: '1' }))
    const own = new DelayQueue(engine)
    await own.schedule({ queue: 'orders', payload: 1, id: 'c-busy' })
    const { shard, bucketNo } = engine.keys.locate('c-busy')
    await new Leases(engine.redis, { leaseMs: 30_000, maxAttempts: 3, backoffBaseMs: 1, backoffMaxMs: 1 }).claim(
      shard,
      [String(bucketNo)],
      10,
    )
    await expect(own.cancel('c-busy')).rejects.toBeInstanceOf(JobDispatchingError)
    await own.close() // not its engine: leaves it open
    expect(await engine.redis.ping()).toBe('PONG')
    await engine.close()
  })

  it('scheduleMany answers each job in order, beyond 100 jobs too', async () => {
    const inputs = Array.from({ length: 250 }, (_, i) => ({
      queue: 'emails',
      payload: i,
      id: `many-${i}`,
      delayMs: 60_000,
    }))
    inputs[120] = { queue: 'nope', payload: 0, id: 'many-bad', delayMs: 0 }
    const results = await queue.scheduleMany(inputs)
    expect(results).toHaveLength(250)
    expect(results[0]).toEqual({ id: 'many-0', status: 'scheduled' })
    expect(results[249]).toEqual({ id: 'many-249', status: 'scheduled' })
    expect((results[120] as { error: unknown }).error).toBeInstanceOf(ValidationError)
    expect((await queue.stats()).queues.emails!.pending).toBe(249)
  })

  it('stats lists every configured queue, zeros included', async () => {
    const own = DelayQueue.fromEnv({
      REDIS_URL: config.redis.url,
      QUEUES: JSON.stringify(QUEUES),
      KEY_PREFIX: `${config.keyPrefix}-env`,
    })
    const stats = await own.stats()
    expect(Object.keys(stats.queues)).toEqual(Object.keys(QUEUES))
    expect(stats).toMatchObject({ inflight: 0, dead: 0, nextDueAt: null })
    await own.close()
  })
})
