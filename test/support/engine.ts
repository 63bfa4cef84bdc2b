// Test helpers: a real Redis connection with a key prefix of its own, so test files never see each other's jobs.
import { inject } from 'vitest'
import { randomBytes } from 'node:crypto'
import { Keyspace } from '../../src/keys'
import { connectRedis } from '../../src/redis'
import { JobStore, type NewJob } from '../../src/store'

export function uniquePrefix(name = 't'): string {
  return `${name}-${randomBytes(4).toString('hex')}`
}

export function testStore(options: { shards?: number; buckets?: number; prefix?: string } = {}) {
  const redis = connectRedis({ url: inject('redisUrl') })
  const keys = new Keyspace({
    prefix: options.prefix ?? uniquePrefix(),
    shards: options.shards ?? 1,
    buckets: options.buckets ?? 64,
  })
  const store = new JobStore(redis, keys)
  return { redis, keys, store, close: () => redis.quit() }
}

let seq = 0
export function job(overrides: Partial<NewJob> = {}): NewJob {
  return {
    id: `job-${++seq}`,
    queue: 'orders',
    payloadJson: JSON.stringify({ n: seq }),
    schedule: { delayMs: 0 },
    ...overrides,
  }
}
