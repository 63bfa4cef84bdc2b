// A slot half-way through a migration (some of a shard's keys moved, some not) refuses every script that touches
// both with TRYAGAIN until the last key has moved. ioredis retries that for ~1.6 s and gives up ("Too many Cluster
// redirections"); claims, acks and enqueues ride it out for longer (src/store/redis/ride-out.ts) and go through once
// the move is over. Real parts: a 3-master Redis Cluster of its own (the test holds a slot half-moved).
import { sleep } from '../../devkit/sleep'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startRedisCluster, type ClusterNode, type LocalRedisCluster } from '../../local/redis-cluster'
import { Leases } from '../../src/scan/claims/leases'
import { Keyspace } from '../../src/store/keys'
import { JobStore } from '../../src/store/job-store'
import { NO_REPLICA_WAIT } from '../../src/store/redis/replication'
import { closeRedis, connectRedis } from '../../src/store/redis/redis'
import { job, uniquePrefix } from '../support/engine'

let cluster: LocalRedisCluster
beforeAll(async () => {
  cluster = await startRedisCluster({ masters: 3 })
})
afterAll(async () => {
  await cluster?.stop()
})

const HELD_MS = 2_500

/** Starts moving `slot` to `to` and moves half of its keys: every script on both halves now answers TRYAGAIN. */
async function halfMove(slot: number, to: ClusterNode) {
  const from = await cluster.ownerOf(slot)
  const source = cluster.connect(from)
  const target = cluster.connect(to)
  try {
    await target.cluster('SETSLOT', slot, 'IMPORTING', from.id)
    await source.cluster('SETSLOT', slot, 'MIGRATING', to.id)
    const keys = (await source.cluster('GETKEYSINSLOT', slot, 1000)) as string[]
    const half = keys.slice(0, Math.ceil(keys.length / 2))
    await source.call('MIGRATE', '127.0.0.1', to.port, '', 0, 10_000, 'REPLACE', 'KEYS', ...half)
  } finally {
    source.disconnect()
    target.disconnect()
  }
}

/** `act` while the slot is held half-moved for HELD_MS, then the move is finished. */
async function whileHalfMoved<T>(slot: number, to: ClusterNode, act: () => Promise<T>) {
  await halfMove(slot, to)
  const started = Date.now()
  const result = act().then(
    (value) => ({ value, ms: Date.now() - started }),
    (error: Error) => ({ error, ms: Date.now() - started }),
  )
  await sleep(HELD_MS)
  await cluster.moveSlot(slot, to)
  return result
}

describe('a slot half-way through a migration', () => {
  it('holds claims, acks and enqueues until the move is over, then runs them: none fails', async () => {
    // prepare: 40 due jobs on one shard (one slot), and a second master to move it to
    const redis = connectRedis({ clusterNodes: cluster.addresses })
    const keys = new Keyspace({ prefix: uniquePrefix('mv'), shards: 1, buckets: 4 })
    const store = new JobStore(redis, keys, undefined, NO_REPLICA_WAIT)
    const leases = new Leases(redis, { leaseMs: 60_000, maxAttempts: 3, backoffBaseMs: 10, backoffMaxMs: 10 })
    const shard = keys.shards[0]!
    await store.enqueueMany(Array.from({ length: 40 }, (_, i) => job({ id: `due-${i}`, due: { delayMs: 0 } })))
    const slot = Number(await redis.cluster('KEYSLOT', shard.tag))
    const home = await cluster.ownerOf(slot)
    const away = cluster.nodes.find((n) => n.id !== home.id)!
    await sleep(20)

    const hints = await leases.seedHints(shard, 8)

    // act: a claim while the slot moves away; an ack and an enqueue while it moves back
    const claim = await whileHalfMoved(slot, away, () => leases.claim(shard, hints, 100))
    const claimed = 'value' in claim ? claim.value.jobs : []
    const settled = await whileHalfMoved(slot, home, () =>
      Promise.all([
        leases.ack(
          shard,
          claimed.map((j) => ({ id: j.id, token: j.token })),
        ),
        store.enqueue(job({ id: 'during-move', due: { delayMs: 60_000 } })),
      ]),
    )

    // assess: each waited for the move (longer than ioredis's own retries) and then succeeded
    expect('error' in claim ? claim.error : undefined).toBeUndefined()
    expect('error' in settled ? settled.error : undefined).toBeUndefined()
    expect(claim.ms).toBeGreaterThanOrEqual(HELD_MS - 100)
    expect(settled.ms).toBeGreaterThanOrEqual(HELD_MS - 100)
    expect(claimed).toHaveLength(40)
    expect('value' in settled && settled.value[0]).toBe(40)
    expect(await cluster.ownerOf(slot)).toMatchObject({ id: home.id })
    expect(await store.get('during-move')).toMatchObject({ id: 'during-move' })
    await closeRedis(redis)
  }, 60_000)
})
