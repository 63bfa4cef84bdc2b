// The key layout (shards, due buckets) is part of the data: a deployment with other numbers must not strand jobs.
import { afterAll, describe, expect, it } from 'vitest'
import { ConfigError } from '../../src/errors'
import { job, testStore, uniquePrefix } from '../support/engine'
import { testScanner } from '../support/scanner'
import { testQueue } from '../support/schedules'

const opened: { close(): Promise<unknown> }[] = []
const store = (options: Parameters<typeof testStore>[0]) => {
  const s = testStore(options)
  opened.push(s)
  return s
}

/** What a store with this layout throws (or answers) on its first command over keys another layout wrote. */
const layoutRefusal = (options: Parameters<typeof testStore>[0]) =>
  store(options)
    .store.stats()
    .catch((e) => e)

afterAll(async () => {
  for (const s of opened) await s.close()
})

describe('key layout', () => {
  it('refuses a store whose shard count differs from the one its pending jobs use, naming SHARDS', async () => {
    // prepare
    const prefix = uniquePrefix('layout')
    await store({ prefix, shards: 1, buckets: 16 }).store.enqueue(job({ id: 'kept', due: { delayMs: 60_000 } }))
    // act
    const other = store({ prefix, shards: 2, buckets: 16 }).store
    const error = await other.enqueue(job({ id: 'new' })).catch((e) => e)
    // assess
    expect(error).toBeInstanceOf(ConfigError)
    expect(error.message).toMatch(/^invalid setting SHARDS: .*shards=1;buckets=16.*shards=2;buckets=16.*KEY_PREFIX/)
    await expect(other.get('kept')).rejects.toBeInstanceOf(ConfigError)
    // the original layout still works, and the job is where it was
    expect((await store({ prefix, shards: 1, buckets: 16 }).store.get('kept'))!.status).toBe('scheduled')
  })

  it('refuses another DUE_BUCKETS over pending jobs', async () => {
    const prefix = uniquePrefix('layout')
    await store({ prefix, shards: 1, buckets: 16 }).store.enqueue(job({ id: 'kept', due: { delayMs: 60_000 } }))
    const error = await layoutRefusal({ prefix, shards: 1, buckets: 32 })
    expect(error).toBeInstanceOf(ConfigError)
    expect(error.setting).toBe('DUE_BUCKETS')
  })

  it('refuses another layout over a paused schedule, though no job is pending', async () => {
    // prepare
    const prefix = uniquePrefix('layout')
    const q = testQueue(store({ prefix, shards: 1, buckets: 16 }))
    await q.putSchedule('resting', { queue: 'orders', payload: 1, everyMs: 60_000, paused: true })
    // act
    const error = await layoutRefusal({ prefix, shards: 2, buckets: 16 })
    // assess
    expect(error).toBeInstanceOf(ConfigError)
    expect(error.setting).toBe('SHARDS')
  })

  it('lets a new layout replace one that holds no jobs', async () => {
    const prefix = uniquePrefix('layout')
    const first = store({ prefix, shards: 1, buckets: 16 }).store
    await first.enqueue(job({ id: 'gone' }))
    await first.cancel('gone')
    const second = store({ prefix, shards: 3, buckets: 64 })
    await second.store.enqueue(job({ id: 'fresh' }))
    expect(await second.redis.get(second.keys.layoutKey)).toBe('shards=3;buckets=64')
  })

  it('stops a scanner configured with another layout instead of scanning half the shards', async () => {
    const prefix = uniquePrefix('layout')
    await store({ prefix, shards: 2, buckets: 16 }).store.enqueue(job({ id: 'kept', due: { delayMs: 60_000 } }))
    const wrong = store({ prefix, shards: 1, buckets: 16 })
    const s = testScanner(wrong, { queues: { orders: 'http://127.0.0.1:1/unused' }, subscribe: false })
    await expect(s.scanner.run(Date.now() + 5_000)).rejects.toBeInstanceOf(ConfigError)
    await s.close()
  })
})
