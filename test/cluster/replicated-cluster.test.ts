// Replicated writes on a Redis Cluster whose masters have replicas: WAIT runs on the master that took the write, also
// after the write was redirected (MOVED, ASK) or sent again (NOSCRIPT), and a slot that moves does not turn
// replicated writes into 503s. Real parts: 3 masters with a replica each, on loopback.
import { eventually } from '../support/eventually'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startRedisCluster, type ClusterNode, type LocalRedisCluster } from '../../local/redis-cluster'
import { Keyspace } from '../../src/store/keys'
import { JobStore } from '../../src/store/job-store'
import { closeRedis, connectRedis } from '../../src/store/redis/redis'
import { job, uniquePrefix } from '../support/engine'
import { monitorRedis } from '../support/redis-monitor'

let cluster: LocalRedisCluster
beforeAll(async () => {
  cluster = await startRedisCluster({ masters: 3, replicas: 1 })
})
afterAll(async () => {
  await cluster?.stop()
})

/** A store of one shard (one slot) that waits for one replica on every write, and where that slot lives. */
async function oneShardStore(waitTimeoutMs: number) {
  const redis = connectRedis({ clusterNodes: cluster.addresses })
  redis.on('error', () => undefined)
  const keys = new Keyspace({ prefix: uniquePrefix('rc'), shards: 1, buckets: 4 })
  // Writes refused during a half-done slot move are sent again for 1 s (5 s by default), to keep the test short.
  const store = new JobStore(redis, keys, undefined, { replicas: 1, timeoutMs: waitTimeoutMs, rideOutMs: 1_000 })
  const shard = keys.shards[0]!
  const slot = Number(await redis.cluster('KEYSLOT', shard.tag))
  return { redis, keys, store, shard, slot }
}

async function onlineReplicas(node: ClusterNode): Promise<number> {
  const r = cluster.connect(node)
  try {
    return (await r.info('replication')).split('\n').filter((l) => /^slave\d+:.*state=online/.test(l)).length
  } finally {
    r.disconnect()
  }
}

/** Cuts `master` off from its replica the way a network blip does (src: test/faults/failover.test.ts); returns mend. */
async function cutReplica(master: ClusterNode): Promise<() => Promise<void>> {
  const replicas = (await cluster.replicasOf(master)).map((n) => cluster.connect(n))
  // none known: there would be nothing to cut, and the wait below for the replica to go would never end
  if (replicas.length === 0) throw new Error(`no replica of :${master.port} known to cut off`)
  const primary = cluster.connect(master)
  await Promise.all(replicas.map((r) => r.config('SET', 'masterauth', 'cut-off')))
  await primary.call('CLIENT', 'KILL', 'TYPE', 'replica')
  primary.disconnect()
  await eventually(async () => (await onlineReplicas(master)) === 0)
  return async () => {
    await Promise.all(replicas.map((r) => r.config('SET', 'masterauth', '')))
    replicas.forEach((r) => r.disconnect())
    await eventually(async () => (await onlineReplicas(master)) > 0)
  }
}

/** What a write answered: confirmed (a success), or the error's code. */
async function outcome(write: Promise<unknown>): Promise<string> {
  return write.then(
    (r) => (r instanceof Error ? ((r as { code?: string }).code ?? r.message) : 'confirmed'),
    (e: Error) => (e as { code?: string }).code ?? e.message,
  )
}

describe('replicated writes on a Cluster with replicas', () => {
  it('never reports a write replicated when the master that took it has lost its replica, after ASK and MOVED too', async () => {
    // prepare: the shard's slot is on A (replica healthy); B's replica is cut off
    const { redis, store, slot } = await oneShardStore(300)
    await store.enqueueMany(Array.from({ length: 20 }, (_, i) => job({ id: `seed-${i}` })))
    const a = await cluster.ownerOf(slot)
    const b = cluster.nodes.find((n) => n.id !== a.id)!
    const mend = await cutReplica(b)
    const outcomes: Record<string, string[]> = { ask: [], moved: [], settled: [] }
    const write = async (phase: string, n: number, on = store) => {
      // The batch first: a client's first write after a move is the one that meets the redirection.
      const batch = on.enqueueMany([job({ id: `${phase}-many-${n}-0` }), job({ id: `${phase}-many-${n}-1` })])
      // A batch answers per job, or throws as a whole (503) when a shard's writes could not be sent at all.
      const each = await batch.then(
        (results) => results.map((r) => outcome(Promise.resolve(r))),
        (e) => [outcome(Promise.reject(e)), outcome(Promise.reject(e))],
      )
      for (const o of each) outcomes[phase]!.push(await o)
      outcomes[phase]!.push(await outcome(on.enqueue(job({ id: `${phase}-one-${n}` }))))
    }
    try {
      // act: the slot moves from A to B. While every key is on B but the slot is still A's, writes are answered ASK
      await cluster.moveSlot(slot, b, { keysPerStep: 100, whileMigrated: () => write('ask', 0) })
      // then, five times: back to A, a client learns that, the slot moves to B behind its back (MOVED)
      for (let n = 0; n < 5; n++) {
        await cluster.moveSlot(slot, a)
        const stale = connectRedis({ clusterNodes: cluster.addresses })
        stale.on('error', () => undefined)
        const staleStore = new JobStore(stale, store.keys, undefined, store.replication)
        await staleStore.get('seed-0')
        await cluster.moveSlot(slot, b)
        await write('moved', n, staleStore)
        await closeRedis(stale)
      }
      // and with every client's slot map current
      for (let n = 0; n < 5; n++) await write('settled', n)
    } finally {
      await mend()
    }
    const control = await outcome(store.enqueue(job({ id: 'after-mend' })))

    // assess: no write on B was called replicated (WAIT ran on B, never on A); once mended, writes are confirmed
    expect(await cluster.ownerOf(slot)).toMatchObject({ id: b.id })
    const all = Object.values(outcomes).flat()
    expect(all.length).toBe(3 + 15 + 15)
    expect(all.filter((o) => o === 'confirmed')).toEqual([])
    expect(outcomes.settled!.every((o) => o === 'ReplicationUnconfirmed')).toBe(true)
    expect(control).toBe('confirmed')
    await closeRedis(redis)
  }, 90_000)

  it('follows MOVED with replicated writes on: a write on a slot that moved is confirmed by the new master', async () => {
    // prepare: a client that has written to the slot on A; the slot then moves to B behind its back
    const { redis, store, shard, slot } = await oneShardStore(5_000)
    await store.enqueue(job({ id: 'before' }))
    const a = await cluster.ownerOf(slot)
    const b = cluster.nodes.find((n) => n.id !== a.id)!
    await cluster.moveSlot(slot, b)
    // act
    const single = await outcome(store.enqueue(job({ id: 'after-move' })))
    const batch = await store.enqueueMany([job({ id: 'after-move-0' }), job({ id: 'after-move-1' })])
    const cancel = await outcome(store.cancel('before'))
    // assess: answered as successes, not 503 "MOVED"; the jobs are on B
    expect(single).toBe('confirmed')
    expect(batch.map((r) => (r instanceof Error ? r.message : 'confirmed'))).toEqual(['confirmed', 'confirmed'])
    expect(cancel).toBe('confirmed')
    const direct = cluster.connect(b)
    expect((await direct.hkeys(shard.jobs)).sort()).toEqual(['after-move', 'after-move-0', 'after-move-1'])
    direct.disconnect()
    await closeRedis(redis)
  }, 60_000)

  it('keeps a write ahead of its WAIT when the master has lost the scripts (NOSCRIPT: sent again with its WAIT)', async () => {
    // prepare: the store has run its scripts on the master; then the master forgets them (as a promoted replica
    // that never loaded them does)
    const { redis, store, shard, slot } = await oneShardStore(5_000)
    await store.enqueue(job({ id: 'warm' }))
    await store.enqueueMany([job({ id: 'warm-0' }), job({ id: 'warm-1' })])
    const master = await cluster.ownerOf(slot)
    const admin = cluster.connect(master)
    await admin.script('FLUSH')
    const monitor = await monitorRedis(master.port)
    const seen: { command: string; source: string }[] = []
    const marker = `${shard.tag}:writes-done`
    const allSeen = new Promise<void>((resolve) =>
      monitor.on(({ args, source }) => {
        const command = String(args[0]).toLowerCase()
        if (command === 'ping' && args[1] === marker) resolve()
        if (['eval', 'evalsha', 'wait'].includes(command)) seen.push({ command, source })
      }),
    )
    // act
    const single = await outcome(store.enqueue(job({ id: 'after-flush' })))
    await admin.script('FLUSH')
    const batch = await store.enqueueMany([job({ id: 'after-flush-0' }), job({ id: 'after-flush-1' })])
    // The monitor's last lines may still be on their way: it has shown them once it shows a PING sent after them.
    await admin.ping(marker)
    await allSeen
    monitor.stop()
    // assess: confirmed, stored, and on the store's connection every script command is followed by a WAIT
    expect(single).toBe('confirmed')
    expect(batch.map((r) => (r instanceof Error ? r.message : 'confirmed'))).toEqual(['confirmed', 'confirmed'])
    expect((await admin.hkeys(shard.jobs)).filter((id) => id.startsWith('after-flush')).sort()).toEqual([
      'after-flush',
      'after-flush-0',
      'after-flush-1',
    ])
    const scripts = seen.filter((s) => s.command !== 'wait')
    expect(scripts.some((s) => s.command === 'eval')).toBe(true)
    for (const [i, s] of seen.entries()) {
      if (s.command === 'wait') continue
      const next = seen.slice(i + 1).find((t) => t.source === s.source && t.command === 'wait')
      expect(next, `${s.command} #${i} from ${s.source} has a WAIT after it`).toBeDefined()
    }
    admin.disconnect()
    await closeRedis(redis)
  }, 60_000)
})
