// Test helpers: a real Redis connection with a key prefix of its own, so test files never see each other's jobs.
import { inject } from 'vitest'
import { randomBytes } from 'node:crypto'
import { Keyspace } from '../../src/store/keys'
import { connectRedis } from '../../src/store/redis/redis'
import { JobStore, type NewJob } from '../../src/store/job-store'
import { NO_REPLICA_WAIT } from '../../src/store/redis/replication'

export function uniquePrefix(name = 't'): string {
  return `${name}-${randomBytes(4).toString('hex')}`
}

/**
 * A store on the project's Redis: one redis-server, or (project "cluster") the local Redis Cluster, where the
 * store has `inject('testShards')` shards by default so its jobs spread over the masters.
 */
export function testStore(options: { shards?: number; buckets?: number; prefix?: string } = {}) {
  const clusterNodes = inject('redisClusterNodes')
  const redis = clusterNodes?.length ? connectRedis({ clusterNodes }) : connectRedis({ url: inject('redisUrl') })
  const keys = new Keyspace({
    prefix: options.prefix ?? uniquePrefix(),
    shards: options.shards ?? (clusterNodes?.length ? (inject('testShards') ?? 1) : 1),
    buckets: options.buckets ?? 64,
  })
  const store = new JobStore(redis, keys, undefined, NO_REPLICA_WAIT)
  return { redis, keys, store, close: () => redis.quit() }
}

let seq = 0
export function job(overrides: Partial<NewJob> = {}): NewJob {
  return {
    id: `job-${++seq}`,
    queue: 'orders',
    payloadJson: JSON.stringify({ n: seq }),
    due: { delayMs: 0 },
    ...overrides,
  }
}

/** Job `i` of FIFO group "g" on queue events.fifo (id `evt-<i>`, payload `i`), due at `atMs`. */
export function groupJob(i: number, atMs: number): NewJob {
  return job({ id: `evt-${i}`, queue: 'events.fifo', groupId: 'g', payloadJson: String(i), due: { atMs } })
}
