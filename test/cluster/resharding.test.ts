// Slots move between masters (what an operator or a managed service's scaling does) while jobs are enqueued and a
// scanner dispatches them to SQS: the clients follow MOVED / ASK / TRYAGAIN, and every accepted job arrives once.
// The masters have a replica each and writes are replicated (REDIS_WAIT_REPLICAS=auto, the default): a write that
// meets a moving slot is sent again, with its WAIT, until the move is over.
import { sleep } from '../../devkit/sleep'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { JobExistsError } from '../../src/errors'
import { Keyspace } from '../../src/store/keys'
import { connectRedis } from '../../src/store/redis/redis'
import { replicaWatchOf } from '../../src/store/redis/replica-watch'
import { defaultLog } from '../../src/logger'
import { JobStore, type NewJob } from '../../src/store/job-store'
import { startRedisCluster, type ClusterNode, type LocalRedisCluster } from '../../local/redis-cluster'
import { job, uniquePrefix } from '../support/engine'
import { pendingCount, testScanner } from '../support/scanner'
import { countIds, createQueue, receiveAll, sqsClient } from '../support/sqs'

const sqs = sqsClient()
// A cluster of its own: moving slots under the shared one would disturb the other files running beside this one.
let cluster: LocalRedisCluster
beforeAll(async () => {
  cluster = await startRedisCluster({ masters: 3, replicas: 1 })
})
afterAll(async () => {
  sqs.destroy()
  await cluster?.stop()
})

/**
 * Enqueue, retrying what the store refused: a script that got a redirect it could not follow did not run, so a retry
 * is safe; JobExistsError on a retry means an earlier attempt went through (a batch that failed part way).
 */
async function enqueueSurely(store: JobStore, jobs: NewJob[], accepted: Set<string>, failures: { n: number }) {
  let results: unknown[]
  try {
    results = jobs.length === 1 ? [await store.enqueue(jobs[0]!)] : await store.enqueueMany(jobs)
  } catch {
    failures.n++
    results = jobs.map(() => new Error('retry'))
  }
  for (const [i, r] of results.entries()) {
    const j = jobs[i]!
    if (!(r instanceof Error) || r instanceof JobExistsError) accepted.add(j.id)
    else {
      for (;;) {
        try {
          await store.enqueue(j)
          break
        } catch (e) {
          if (e instanceof JobExistsError) break
          failures.n++
          await sleep(50)
        }
      }
      accepted.add(j.id)
    }
  }
}

describe('resharding', () => {
  it('loses no job and sends none twice while slots move between masters under enqueues and a scanner', async () => {
    // prepare: 6 shards over the 3 masters, a scanner running, producers enqueueing one by one and in batches
    const redis = connectRedis({ clusterNodes: cluster.addresses })
    const keys = new Keyspace({ prefix: uniquePrefix('rs'), shards: 6, buckets: 32 })
    const store = new JobStore(redis, keys, undefined, {
      replicas: 'auto',
      timeoutMs: 2_000,
      watch: replicaWatchOf(redis, keys, defaultLog(), 2_000),
    })
    const q = await createQueue(sqs, 'reshard')
    const scanner = testScanner({ redis, keys }, { queues: { orders: q.url }, claimBatchSize: 50 })
    const slotOf = async (tag: string) => Number(await redis.cluster('KEYSLOT', tag))
    const shardSlots = await Promise.all(keys.shards.map((s) => slotOf(s.tag)))
    const ownersBefore = await Promise.all(shardSlots.map((s) => cluster.ownerOf(s)))
    const accepted = new Set<string>()
    const failures = { n: 0 }
    let producing = true
    const run = scanner.scanner.run(Date.now() + 90_000)
    // Batches are due later than any retry can take, so a batch retried after a partial failure never re-creates a
    // job that was already delivered.
    const producers = [
      (async () => {
        for (let i = 0; producing; i++) {
          await enqueueSurely(store, [job({ id: `one-${i}`, due: { delayMs: i % 300 } })], accepted, failures)
          if (i % 4 === 0) await sleep(2)
        }
      })(),
      (async () => {
        for (let i = 0; producing; i++) {
          const batch = Array.from({ length: 20 }, (_, k) => job({ id: `many-${i}-${k}`, due: { delayMs: 2_000 } }))
          await enqueueSurely(store, batch, accepted, failures)
          await sleep(20)
        }
      })(),
    ]
    await sleep(500)

    // act: slots of two shards migrate a few keys at a time (half-migrated slots: ASK / TRYAGAIN); then every slot
    // of one master goes to another with redis-cli (a master drained before it is removed)
    const [a, b, c] = cluster.nodes as [ClusterNode, ClusterNode, ClusterNode]
    for (const slot of shardSlots.slice(0, 2)) {
      const owner = await cluster.ownerOf(slot)
      await cluster.moveSlot(slot, owner.id === a.id ? b : a, { keysPerStep: 2, pauseMs: 30 })
    }
    await cluster.reshard(a, b, (await cluster.slotCounts()).get(a.id)!)
    producing = false
    await Promise.all(producers)
    await waitFor(async () => (await pendingCount(store)) === 0, 30_000)
    scanner.scanner.stop()
    const report = await run

    // assess: the slots really moved, no write was refused (each rode out the moves), and each accepted job reached
    // SQS exactly once
    const counts = await cluster.slotCounts()
    expect(counts.get(a.id)).toBe(0)
    expect(counts.get(b.id)! + counts.get(c.id)!).toBe(16384)
    const owners = await Promise.all(shardSlots.map((s) => cluster.ownerOf(s)))
    expect(owners.some((o, i) => o.id !== ownersBefore[i]!.id)).toBe(true)
    expect(accepted.size).toBeGreaterThan(300)
    expect(failures.n).toBe(0)
    const delivered = countIds(await receiveAll(sqs, q.url, 8))
    const missing = [...accepted].filter((id) => !delivered.has(id))
    expect(missing).toEqual([])
    expect([...delivered].filter(([, n]) => n > 1)).toEqual([])
    expect(delivered.size).toBe(accepted.size)
    expect(report.dispatched).toBe(accepted.size)
    expect((await store.stats()).dead).toBe(0)
    await scanner.close()
    await redis.quit()
  }, 120_000)
})

async function waitFor(done: () => Promise<boolean>, timeoutMs: number) {
  const deadline = Date.now() + timeoutMs
  while (!(await done())) {
    if (Date.now() > deadline) throw new Error(`not done after ${timeoutMs} ms`)
    await sleep(50)
  }
}
