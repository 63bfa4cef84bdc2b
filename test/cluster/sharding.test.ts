// Shards on Redis Cluster: jobs spread over shards by id and shards over masters; scanners share shards through
// claims alone; the cluster connection takes TLS and AUTH from REDIS_URL.
import { Redis, type Cluster } from 'ioredis'
import { afterAll, describe, expect, inject, it } from 'vitest'
import { StoreUnavailableError } from '../../src/errors'
import { Keyspace } from '../../src/store/keys'
import { connectRedis } from '../../src/store/redis/redis'
import { JobStore } from '../../src/store/job-store'
import { NO_REPLICA_WAIT } from '../../src/store/redis/replication'
import { startRedisCluster } from '../../local/redis-cluster'
import { job, uniquePrefix } from '../support/engine'
import { pendingCount, testScanner } from '../support/scanner'
import { countIds, createQueue, receiveAll, sqsClient } from '../support/sqs'

const sqs = sqsClient()
const nodes = inject('redisClusterNodes')!
afterAll(() => sqs.destroy())

function clusterStore(shards: number) {
  const redis = connectRedis({ clusterNodes: nodes })
  const keys = new Keyspace({ prefix: uniquePrefix('sh'), shards, buckets: 16 })
  return { redis, keys, store: new JobStore(redis, keys, undefined, NO_REPLICA_WAIT) }
}

describe('sharding on Redis Cluster', () => {
  it('puts each job on the shard its id hashes to, on the master serving that shard, spread over shards', async () => {
    // prepare
    const { redis, keys, store } = clusterStore(8)
    const jobs = Array.from({ length: 800 }, (_, i) => job({ id: `spread-${i}`, due: { delayMs: 600_000 } }))
    // act
    await store.enqueueMany(jobs)
    // assess: read each shard's jobs hash straight from the master that serves the shard's slot (no redirects)
    const direct = new Map(nodes.map((n) => [n, new Redis(Number(n.split(':')[1]), '127.0.0.1')]))
    const perShard: number[] = []
    const masters = new Set<string>()
    for (const shard of keys.shards) {
      const slot = Number(await redis.cluster('KEYSLOT', shard.tag))
      const owner = await ownerAddress(redis as Cluster, slot)
      masters.add(owner)
      const ids = await direct.get(owner)!.hkeys(shard.jobs)
      expect(ids.every((id) => keys.locate(id).shard === shard)).toBe(true)
      perShard.push(ids.length)
    }
    expect(perShard.reduce((a, b) => a + b, 0)).toBe(800)
    expect(Math.min(...perShard)).toBeGreaterThan(50) // 100 each on average: no shard is left empty or hot
    expect(Math.max(...perShard)).toBeLessThan(150)
    expect(masters.size).toBeGreaterThan(1) // 8 random tags over 3 masters: all on one is a 1-in-2,000 event
    for (const r of direct.values()) r.disconnect()
    await redis.quit()
  })

  it('has two scanners share 8 shards with no coordination but the claims: each of 3,000 jobs sent once', async () => {
    // prepare
    const t = clusterStore(8)
    const q = await createQueue(sqs, 'two')
    for (let i = 0; i < 3_000; i += 500) {
      await t.store.enqueueMany(Array.from({ length: 500 }, (_, k) => job({ id: `two-${i + k}` })))
    }
    const scanners = [0, 1].map(() => testScanner(t, { queues: { orders: q.url }, claimBatchSize: 50 }))
    // act
    const reports = await Promise.all(
      scanners.map((s) => s.runUntil(async () => (await pendingCount(t.store)) === 0, 30_000)),
    )
    // assess
    const counts = countIds(await receiveAll(sqs, q.url, 8))
    expect(counts.size).toBe(3_000)
    expect([...counts.values()].every((n) => n === 1)).toBe(true)
    expect(reports.map((r) => r.dispatched).reduce((a, b) => a + b)).toBe(3_000)
    expect(reports.every((r) => r.dispatched > 0)).toBe(true)
    for (const s of scanners) await s.close()
    await t.redis.quit()
  }, 60_000)

  it('authenticates to a password-protected cluster with the password from REDIS_URL, and is refused without', async () => {
    // prepare
    const secured = await startRedisCluster({ masters: 3, password: 's3cret/+pw' })
    try {
      const url = `redis://:${encodeURIComponent('s3cret/+pw')}@cluster`
      const redis = connectRedis({ url, clusterNodes: secured.addresses })
      const keys = new Keyspace({ prefix: uniquePrefix('auth'), shards: 4, buckets: 4 })
      const store = new JobStore(redis, keys, undefined, NO_REPLICA_WAIT)
      // act
      await store.enqueueMany(Array.from({ length: 20 }, (_, i) => job({ id: `auth-${i}`, due: { delayMs: 60_000 } })))
      const anonymous = connectRedis({ clusterNodes: secured.addresses })
      const refused = await new JobStore(anonymous, keys, undefined, NO_REPLICA_WAIT).get('auth-7').then(
        () => null,
        (e: Error) => e,
      )
      // assess
      expect((await store.stats()).queues.orders).toMatchObject({ pending: 20 })
      expect((await store.get('auth-7'))!.status).toBe('scheduled')
      // without the password: a prompt 503, not a call that waits for the cluster forever
      expect(refused).toBeInstanceOf(StoreUnavailableError)
      expect(String((refused as StoreUnavailableError).cause)).toMatch(/Redis Cluster unavailable/)
      anonymous.disconnect()
      await redis.quit()
    } finally {
      await secured.stop()
    }
  }, 60_000)

  it('takes TLS (rediss://), user and password for every cluster node from REDIS_URL', async () => {
    // act: nothing listens on port 1; only the options built matter here
    const redis = connectRedis({ url: 'rediss://app%40user:p%3Ass@cluster.example', clusterNodes: ['127.0.0.1:1'] })
    redis.on('error', () => {})
    const options = (redis as Cluster).options
    redis.disconnect()
    // assess
    expect(options.redisOptions).toMatchObject({ tls: {}, username: 'app@user', password: 'p:ss' })
    const plain = connectRedis({ url: 'redis://127.0.0.1', clusterNodes: ['127.0.0.1:1'] })
    plain.on('error', () => {})
    expect((plain as Cluster).options.redisOptions).toMatchObject({ tls: undefined, password: undefined })
    plain.disconnect()
  })
})

async function ownerAddress(redis: Cluster, slot: number): Promise<string> {
  const ranges = (await redis.cluster('SLOTS')) as unknown as [number, number, [string, number]][]
  const range = ranges.find(([lo, hi]) => slot >= lo && slot <= hi)!
  return `${range[2][0]}:${range[2][1]}`
}
