// Redis at maxmemory with noeviction: new jobs get their own answer (507 StoreFull, not "unavailable"), while the
// queue drains: due jobs still reach SQS (claim, ack) and cancels still work. Before that, the scanner's memory
// watch warns once used_memory passes REDIS_MEMORY_WARN_PERCENT. Every scanner path runs while full: claims, acks,
// releases (and dead-lettering), and the recovery of leases a crashed scanner left. A private redis-server: the test caps its memory.
import { describe, expect, it } from 'vitest'
import { cappedRedisForFile } from '../support/capped-redis'
import { StoreFullError } from '../../src/errors'
import { Leases } from '../../src/scan/claims/leases'
import { MemoryWatch } from '../../src/scan/observe/memory-watch'
import { connectRedis } from '../../src/store/redis/redis'
import { JobStore } from '../../src/store/job-store'
import { NO_REPLICA_WAIT } from '../../src/store/redis/replication'
import { Keyspace } from '../../src/store/keys'
import { bodyOf, request, testApi, testConfig } from '../api/api-helpers'
import { job, uniquePrefix } from '../support/engine'
import { pendingCount, testScanner } from '../support/scanner'
import { countIds, createQueue, receiveAll, sqsClient } from '../support/sqs'

const PAYLOAD = JSON.stringify({ pad: 'x'.repeat(4_000) })
const capped = cappedRedisForFile()
const { usedMemory } = capped

describe('Redis full (maxmemory, noeviction)', () => {
  it('refuses new jobs with 507 StoreFull, keeps dispatching due jobs and cancelling, and warned before', async () => {
    // prepare: 300 jobs due in 1 s and 50 far-future ones, then a cap just above what they use
    const sqs = sqsClient()
    const queue = await createQueue(sqs, 'full')
    const keys = new Keyspace({ prefix: uniquePrefix('full'), shards: 1, buckets: 64 })
    const redis = connectRedis({ url: capped.server.url })
    const store = new JobStore(redis, keys, undefined, NO_REPLICA_WAIT)
    const due = Array.from({ length: 300 }, (_, i) =>
      job({ id: `due-${i}`, payloadJson: PAYLOAD, due: { delayMs: 0 } }),
    )
    // A job for a target that is not configured: SQS-side refusals are released, and dead-lettered at the end.
    const ghost = job({ id: 'ghost', queue: 'ghost', due: { delayMs: 0 } })
    const later = Array.from({ length: 50 }, (_, i) =>
      job({ id: `later-${i}`, payloadJson: PAYLOAD, due: { delayMs: 3_600_000 } }),
    )
    await store.enqueueMany([...due, ...later, ghost])
    const warnings: string[] = []
    const logger = {
      info: () => undefined,
      error: () => undefined,
      warn: (message: string) => void warnings.push(message),
    }
    const watch = new MemoryWatch(redis, { warnPercent: 80, logger })
    await capped.admin.config('SET', 'maxmemory', String(Math.floor((await usedMemory()) * 1.1)))
    const warnedBeforeFull = await watch.check()
    const acceptedBeforeFull = await store.enqueue(job({ id: 'fits', due: { delayMs: 3_600_000 } }))
    // act: over the limit (and kept there while the queue drains: 1 byte), then enqueue, cancel, and dispatch
    await capped.admin.config('SET', 'maxmemory', '1')
    const refused = await store.enqueue(job({ id: 'too-much', payloadJson: PAYLOAD })).catch((e: unknown) => e)
    const api = testApi(
      {},
      { config: testConfig(), keys, redis, store, replication: store.replication, close: async () => {} },
    )
    const answer = await api.call(request('POST', '/jobs', { body: { queue: 'orders', payload: 1 } }))
    await store.cancel('later-0')
    // a scanner that claims 20 jobs and dies: their leases must be recovered while Redis is full
    const crashed = new Leases(redis, { leaseMs: 1_000, maxAttempts: 3, backoffBaseMs: 20, backoffMaxMs: 100 })
    const shard = keys.shards[0]!
    const leased = await crashed.claim(shard, await crashed.seedHints(shard, 64), 20)
    const scanner = testScanner({ redis, keys }, { queues: { orders: queue.url }, maxAttempts: 3 })
    await scanner.runUntil(async () => (await pendingCount(store)) === 50, 20_000)
    await scanner.close()
    // assess
    const received = countIds(await receiveAll(sqs, queue.url))
    expect(warnedBeforeFull!.percent).toBeGreaterThanOrEqual(80)
    expect(warnings.some((w) => w.startsWith('redis memory above the warning threshold'))).toBe(true)
    expect(acceptedBeforeFull.status).toBe('created')
    expect(refused).toBeInstanceOf(StoreFullError)
    expect(answer.statusCode).toBe(507)
    expect(bodyOf(answer).error.code).toBe('StoreFull')
    expect(await store.get('later-0')).toBeNull()
    expect(leased.jobs).toHaveLength(20)
    expect([...received.keys()].filter((id) => id.startsWith('due-'))).toHaveLength(300)
    expect((await store.get('ghost'))?.status).toBe('dead')
    expect(await pendingCount(store)).toBe(50) // 49 later + fits
    sqs.destroy()
    await capped.admin.config('SET', 'maxmemory', '0')
    await redis.quit()
  })
})
