// What the operator tools read from Redis does not grow with payload sizes: the dashboard's refresh reads no payload
// whole, and `sdq dead list --queue` reads whole only the payloads it prints. Bytes are counted on the client's own
// sockets (what Redis sent to this connection), with 1 KB and 1 MB payloads.
import { sleep } from '../../devkit/sleep'
import type { Redis } from 'ioredis'
import { afterAll, describe, expect, it } from 'vitest'
import { DelayQueue } from '../../src/direct/delay-queue'
import type { Config } from '../../src/config'
import { DeadSet } from '../../src/ops/dead-set'
import { OverviewReader } from '../../src/ops/dashboard/overview'
import { Leases } from '../../src/scan/claims/leases'
import type { RedisClient } from '../../src/store/scripts'
import { previewText, readRecordHeads } from '../../src/store/record-heads'
import { decodeRecord, RECORD_HEADER_LINES } from '../../src/store/record'
import { job, testStore } from '../support/engine'

const KB = 1_000
const MB = 1_000_000
const stores: ReturnType<typeof testStore>[] = []
afterAll(() => Promise.all(stores.map((t) => t.close())))

/** Bytes Redis has sent to this client so far, over all its connections (one per Cluster node). */
function bytesRead(redis: RedisClient): number {
  const clients = 'nodes' in redis ? redis.nodes('all') : [redis]
  return clients.reduce((n, c) => n + ((c as Redis).stream?.bytesRead ?? 0), 0)
}

async function measure<T>(redis: RedisClient, read: () => Promise<T>): Promise<{ bytes: number; result: T }> {
  await redis.ping() // connected, and nothing of an earlier call still arriving
  const before = bytesRead(redis)
  const result = await read()
  return { bytes: bytesRead(redis) - before, result }
}

/**
 * A store whose payloads are `size` bytes of JSON: 12 dead jobs (3 orders, 9 emails), 4 orders jobs in flight (held
 * by a scanner), 20 scheduled, and 2 recurring schedules (each with its next occurrence scheduled).
 */
async function storeWith(size: number) {
  const t = testStore({ buckets: 16 })
  stores.push(t)
  const payloadJson = JSON.stringify('x'.repeat(size - 2))
  const leases = new Leases(t.redis, { leaseMs: 600_000, maxAttempts: 1, backoffBaseMs: 1, backoffMaxMs: 1 })
  const claimAll = async (refuse: boolean) => {
    for (const shard of t.keys.shards) {
      const { jobs } = await leases.claim(shard, await leases.seedHints(shard, 50), 50)
      if (refuse)
        await leases.release(
          shard,
          jobs.map((j) => ({ ...j, error: 'refused' })),
        )
    }
  }
  for (let i = 0; i < 12; i++) {
    await t.store.enqueue(job({ id: `dead-${i}`, queue: i % 4 === 0 ? 'orders' : 'emails', payloadJson }))
  }
  await claimAll(true)
  for (let i = 0; i < 4; i++) await t.store.enqueue(job({ id: `flying-${i}`, payloadJson }))
  await claimAll(false)
  for (let i = 0; i < 20; i++)
    await t.store.enqueue(job({ id: `later-${i}`, payloadJson, due: { delayMs: 3_600_000 } }))
  const queues: Record<string, string> = { orders: 'http://127.0.0.1:9/q/orders' }
  const config = { queues, maxMessageBytes: 1_048_576, maxHorizonMs: 400 * 86_400_000 } as Config
  const schedules = new DelayQueue({ config, store: t.store })
  for (const id of ['daily', 'hourly']) {
    await schedules.putSchedule(id, { queue: 'orders', payload: 'x'.repeat(size - 2), cron: '0 * * * *' })
  }
  return t
}

describe('operator reads', () => {
  it('read about the same bytes from Redis with 1 MB payloads as with 1 KB ones', async () => {
    // prepare
    const small = await storeWith(KB)
    const large = await storeWith(MB)
    // act
    const refresh = async (t: ReturnType<typeof testStore>) =>
      measure(t.redis, () => new OverviewReader(t.redis, t.keys, t.store).read())
    const deadList = async (t: ReturnType<typeof testStore>) =>
      measure(t.redis, () => new DeadSet(t.redis, t.keys).list({ queue: 'orders', limit: 2 }))
    const [smallRefresh, largeRefresh] = [await refresh(small), await refresh(large)]
    const [smallList, largeList] = [await deadList(small), await deadList(large)]
    // assess: a refresh reads no payload whole: 1,000 times larger payloads, about the same bytes (the 12 dead
    // jobs' previews are 256 bytes in both)
    console.log(`refresh: ${smallRefresh.bytes} B (1 KB payloads), ${largeRefresh.bytes} B (1 MB payloads)`)
    expect(largeRefresh.bytes).toBeLessThan(smallRefresh.bytes + 4 * KB)
    expect(largeRefresh.bytes).toBeLessThan(64 * KB)
    // a queue-filtered dead list reads whole only the 2 payloads it prints, not the 12 it looks through
    console.log(`dead list --queue: ${smallList.bytes} B (1 KB payloads), ${largeList.bytes} B (1 MB payloads)`)
    expect(largeList.bytes - 2 * MB).toBeLessThan(smallList.bytes - 2 * KB + 4 * KB)
    // ... and what is shown is right
    for (const { result: o } of [smallRefresh, largeRefresh]) {
      expect(o.queues.orders).toEqual({ pending: 22, inFlight: 4, dead: 3, dispatched: 0 })
      expect(o.queues.emails).toEqual({ pending: 0, inFlight: 0, dead: 9, dispatched: 0 })
      expect(o.dead).toHaveLength(12)
      expect(o.schedules.map((s) => s.id)).toEqual(['daily', 'hourly'])
    }
    expect(largeRefresh.result.dead[0]).toMatchObject({
      payloadBytes: MB,
      payloadPreview: expect.stringMatching(/^"x{255}…$/),
    })
    expect(largeList.result.map((j) => [j.queue, (j.payload as string).length])).toEqual([
      ['orders', MB - 2],
      ['orders', MB - 2],
    ])
  })

  it('reads the heads of records larger than one call may read, in order, a missing one as none', async () => {
    // prepare: 9 records of 1 MB (a call reads 4 MiB at most), one id without a record among them
    const t = testStore({ shards: 1 })
    stores.push(t)
    const ids = Array.from({ length: 10 }, (_, i) => `big-${i}`)
    for (const id of ids.filter((id) => id !== 'big-4')) {
      await t.store.enqueue(job({ id, payloadJson: JSON.stringify(`é${'x'.repeat(MB)}`) }))
    }
    // act
    const { bytes, result: heads } = await measure(t.redis, () =>
      readRecordHeads(t.redis, t.keys.shards[0]!.jobs, ids, { headerLines: RECORD_HEADER_LINES, previewBytes: 2 }),
    )
    // assess: every id answered, in order; a preview cut inside "é" drops the half character
    expect(heads.map((h) => h && decodeRecord(h.head).queue)).toEqual([
      ...Array(4).fill('orders'),
      null,
      ...Array(5).fill('orders'),
    ])
    const first = decodeRecord(heads[0]!.head)
    expect(previewText(first.payloadJson, heads[0]!.payloadBytes, 2)).toBe('"…')
    expect(heads[0]!.payloadBytes).toBe(MB + 4)
    expect(bytes).toBeLessThan(4 * KB)
  })

  it('finds the dead jobs of a queue past the first page of the dead set', async () => {
    // prepare: 2 orders jobs died first, then 150 emails jobs (a page of the dead set is 100)
    const t = testStore({ shards: 1 })
    stores.push(t)
    const shard = t.keys.shards[0]!
    const leases = new Leases(t.redis, { leaseMs: 60_000, maxAttempts: 1, backoffBaseMs: 1, backoffMaxMs: 1 })
    const kill = async () => {
      for (;;) {
        const { jobs } = await leases.claim(shard, await leases.seedHints(shard, 100), 100)
        if (jobs.length === 0) return
        await leases.release(
          shard,
          jobs.map((j) => ({ ...j, error: 'refused' })),
        )
      }
    }
    for (const id of ['old-order-1', 'old-order-2']) await t.store.enqueue(job({ id, queue: 'orders' }))
    await kill()
    await sleep(5)
    for (let i = 0; i < 150; i++) await t.store.enqueue(job({ id: `mail-${i}`, queue: 'emails' }))
    await kill()
    // act
    const orders = await new DeadSet(t.redis, t.keys).list({ queue: 'orders', limit: 20 }) // looks through 200
    // assess
    expect(orders.map((j) => j.id).sort()).toEqual(['old-order-1', 'old-order-2'])
    expect(orders[0]).toMatchObject({
      queue: 'orders',
      payload: { n: expect.any(Number) },
      lastError: { message: 'refused' },
    })
  })

  it('reads each record once over refreshes, not once per refresh', async () => {
    // prepare: the store of 1 KB payloads above, and a count of the records its script calls are asked for
    const t = await storeWith(KB)
    const asked: string[] = []
    const script = t.redis.sdqRecordHeads.bind(t.redis)
    t.redis.sdqRecordHeads = (keys: number, ...args: (string | number)[]) => {
      asked.push(...args.slice(keys + 3).map(String)) // after KEYS and three arguments: the ids
      return script(keys, ...args)
    }
    const reader = new OverviewReader(t.redis, t.keys, t.store)
    // act
    await reader.read()
    const first = asked.splice(0)
    const second = await reader.read()
    const again = asked.splice(0)
    // assess: the first refresh reads the 12 dead and 4 in-flight jobs (and the 2 schedules); the second only the
    // schedules (their records change with every occurrence), and shows the same
    expect(first.filter((id) => /^(dead|flying)-/.test(id)).sort()).toHaveLength(16)
    expect(again.sort()).toEqual(['daily', 'hourly'])
    expect(second.queues.orders).toEqual({ pending: 22, inFlight: 4, dead: 3, dispatched: 0 })
    expect(second.dead).toHaveLength(12)
  })
})
