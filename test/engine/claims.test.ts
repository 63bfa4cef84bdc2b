// The lease protocol at the script level: order, expiry, tokens, bounded batches, Redis's clock.
import { sleep } from '../../devkit/sleep'
import { afterEach, beforeEach, describe, expect, it, onTestFinished, vi } from 'vitest'
import { Cluster, type Redis } from 'ioredis'
import { JobDispatchingError, JobNotFoundError } from '../../src/errors'
import { Leases } from '../../src/scan/claims/leases'
import type { ShardKeys } from '../../src/store/keys'
import { readStats } from '../../src/store/stats'
import { job, testStore } from '../support/engine'
import { monitorRedis } from '../support/redis-monitor'

// Each case its own keyspace: a case that fails before its ack leaves its jobs leased, and with a lease of 150 ms
// they came back in the next case's claims (that case then failed too, on jobs not its own).
let t: ReturnType<typeof testStore>
let leases: Leases
let shard: ShardKeys
beforeEach(async () => {
  t = testStore({ shards: 1, buckets: 8 })
  leases = new Leases(t.redis, { leaseMs: 150, maxAttempts: 3, backoffBaseMs: 50, backoffMaxMs: 50 })
  shard = t.keys.shards[0]!
  await t.redis.ping() // connected before the case's clock starts
})
afterEach(() => t.close())

async function claimAll(limit = 100, l = leases) {
  const out = []
  for (;;) {
    const r = await l.claim(shard, await l.seedHints(shard, limit), limit)
    out.push(...r.jobs)
    if (!r.again) return out
  }
}

/** Claims and releases job `id` `times` times, each refusal transient (not the job's fault), as an ailing SQS does. */
async function refuseTransiently(id: string, times: number, error: string) {
  for (let attempt = 1; attempt <= times; attempt++) {
    await sleep(60)
    const [claimed] = (await claimAll()).filter((j) => j.id === id)
    await leases.release(shard, [{ ...claimed!, error, jobsFault: false }])
  }
}

/** A store of the case's own besides `t`, closed when the case ends, also when it fails. */
function ownStore(options: Parameters<typeof testStore>[0]) {
  const s = testStore(options)
  onTestFinished(async () => {
    await s.close()
  })
  return s
}

/** A store of one shard in 64 buckets (one job a bucket, mostly) and a leasing side with a dispatch window. */
function windowedShard(windowMs: number) {
  const s = ownStore({ shards: 1, buckets: 64 })
  const l = new Leases(s.redis, { leaseMs: 5_000, maxAttempts: 3, backoffBaseMs: 1, backoffMaxMs: 1, windowMs })
  return { s, l, sh: s.keys.shards[0]! }
}

describe('claims', () => {
  it('hands jobs out in due-time order, whatever the order they were enqueued in', async () => {
    // prepare: due times from one clock reading, 3 s ahead (delays from each enqueue's own moment crossed over when
    // the enqueues were slow on a loaded machine: "early", enqueued 250 ms late, fell due after "late"; and a due
    // time already past when its enqueue ran means "now": with 1 s of room, "late" came first at load 15-25)
    const base = Date.now() + 3_000
    const dues: number[] = []
    for (const [id, afterMs] of [
      ['late', 300],
      ['early', 100],
      ['middle', 200],
    ] as const) {
      dues.push((await t.store.enqueue(job({ id: `order-${id}`, due: { atMs: base + afterMs } }))).dueMs)
    }
    expect(dues, 'each enqueue ran before its due time').toEqual([base + 300, base + 100, base + 200])
    await sleep(base + 350 - Date.now())
    // act
    const claimed = await claimAll()
    // assess
    expect(claimed.map((j) => j.id)).toEqual(['order-early', 'order-middle', 'order-late'])
    expect(claimed.every((j) => j.attempt === 1)).toBe(true)
    await leases.ack(shard, claimed)
  })

  it('with a dispatch window, says when ten jobs are due, and a claim for that full request stops at its tenth job', async () => {
    // prepare: 15 jobs due 1 ms apart, the 10th and 11th in the same millisecond, in 64 buckets (one job each,
    // mostly); a leasing side with a 1 s window
    const { s, l, sh } = windowedShard(1_000)
    const at = Date.now() + 1_000
    const ids = Array.from({ length: 15 }, (_, i) => `full-${String(i).padStart(2, '0')}`)
    const dueOffset = (i: number) => (i === 10 ? 9 : i)
    await s.store.enqueueMany(ids.map((id, i) => job({ id, due: { atMs: at + dueOffset(i) } })))
    // act: a claim before any is due announces the full request; after all are due, a claim for it takes ten only
    const before = await l.claim(sh, await l.seedHints(sh, 100), 100)
    await sleep(at + 15 - Date.now() + 50)
    const full = await l.claim(sh, before.hints, 100, before.fullAtMs!)
    const rest = await l.claim(sh, full.hints, 100)
    // assess
    expect(before.jobs).toEqual([])
    expect(before.fullAtMs).toBe(at + 9)
    expect(full.jobs).toHaveLength(10)
    expect(full.again).toBe(false)
    expect(full.jobs.map((j) => j.id)).toEqual(expect.arrayContaining(ids.slice(0, 9)))
    expect(rest.jobs).toHaveLength(5)
  })

  it('a claim for a full request still takes every job whose window has ended', async () => {
    // prepare: the same 15 jobs under a 50 ms window, claimed long after the last one's window ended
    const { s, l, sh } = windowedShard(50)
    const at = Date.now() + 1_000
    await s.store.enqueueMany(Array.from({ length: 15 }, (_, i) => job({ id: `late-${i}`, due: { atMs: at + i } })))
    const before = await l.claim(sh, await l.seedHints(sh, 100), 100)
    expect(before.fullAtMs).toBe(at + 9)
    await sleep(at + 15 - Date.now() + 200)
    // act
    const full = await l.claim(sh, before.hints, 100, before.fullAtMs!)
    // assess: nothing is held past its window for the sake of a full request
    expect(full.jobs).toHaveLength(15)
  })

  it('a claim for a full request later than eleven ended windows takes ten of them; the next claim takes the eleventh', async () => {
    // prepare: under a 3 s window, eleven jobs due at once in one bucket and nine due 2.9 s later in nine others,
    // so the tenth bucket (the full request's fullAt) is due 2.9 s after them; its claim comes once their windows
    // have ended (anywhere up to the fullAt's own window's end: 2.9 s of room for a slow timer on a loaded machine)
    const { s, l, sh } = windowedShard(3_000)
    const shared = s.keys.locate('ended-0').bucketNo
    const together: string[] = []
    const apart = new Map<number, string>()
    for (let i = 0; together.length < 11 || apart.size < 9; i++) {
      const id = `ended-${i}`
      const bucketNo = s.keys.locate(id).bucketNo
      if (bucketNo === shared && together.length < 11) together.push(id)
      else if (bucketNo !== shared && !apart.has(bucketNo) && apart.size < 9) apart.set(bucketNo, id)
    }
    const at = Date.now() + 1_000
    await s.store.enqueueMany([
      ...together.map((id) => job({ id, due: { atMs: at } })),
      ...[...apart.values()].map((id) => job({ id, due: { atMs: at + 2_900 } })),
    ])
    const before = await l.claim(sh, await l.seedHints(sh, 100), 100)
    await sleep(at + 3_010 - Date.now())
    // act
    const full = await l.claim(sh, before.hints, 100, before.fullAtMs!)
    const next = await l.claim(sh, full.hints, 100, before.fullAtMs!)
    // assess: the full request is ten jobs whose windows have ended; the eleventh leads the next claim
    expect(before.fullAtMs).toBe(at + 2_900)
    expect(full.jobs.map((j) => j.dueMs)).toEqual(Array(10).fill(at))
    expect(next.jobs.map((j) => j.dueMs)).toEqual([at, ...Array(9).fill(at + 2_900)])
  })

  it('orders jobs due in the same millisecond by id within a bucket', async () => {
    const s = ownStore({ shards: 1, buckets: 1 })
    const l = new Leases(s.redis, { leaseMs: 1000, maxAttempts: 3, backoffBaseMs: 1, backoffMaxMs: 1 })
    // three seconds of room: an enqueue after `at` would be due at its own time, not in the same millisecond (three
    // enqueues took more than a second under load)
    const at = Date.now() + 3_000
    for (const id of ['c', 'a', 'b']) await s.store.enqueue(job({ id, due: { atMs: at } }))
    await sleep(at - Date.now() + 50)
    const r = await l.claim(s.keys.shards[0]!, ['0'], 10)
    expect(r.jobs.map((j) => j.id)).toEqual(['a', 'b', 'c'])
  })

  it('adds delayMs to Redis clock, so a caller with a skewed clock changes nothing', async () => {
    // prepare: this process believes it is one hour later than it is
    vi.useFakeTimers({ toFake: ['Date'] })
    vi.setSystemTime(Date.now() + 3_600_000)
    // act
    const r = await t.store.enqueue(job({ id: 'skewed', due: { delayMs: 60_000 } }))
    vi.useRealTimers()
    // assess
    const [sec, usec] = await t.redis.time()
    const redisNow = Number(sec) * 1000 + Math.floor(Number(usec) / 1000)
    // (what a loaded machine adds between the enqueue and this TIME is no concern: the skew is an hour)
    expect(Math.abs(r.dueMs - (redisNow + 60_000))).toBeLessThan(600_000)
    await t.store.cancel('skewed')
  })

  it('acks each job of a claim once, even when one is named twice, and moves each count once', async () => {
    // prepare: three jobs of their own store, claimed by one lease; queue "ack-once" counts three pending
    const s = ownStore({ shards: 1, buckets: 8 })
    const l = new Leases(s.redis, { leaseMs: 60_000, maxAttempts: 3, backoffBaseMs: 1, backoffMaxMs: 1 })
    const sh = s.keys.shards[0]!
    await s.store.enqueueMany([0, 1, 2].map(() => job({ queue: 'ack-once' })))
    const { jobs } = await l.claim(sh, await l.seedHints(sh, 10), 10)
    expect(jobs).toHaveLength(3)
    // act: the first job twice in one ack
    const acked = await l.ack(sh, [jobs[0]!, ...jobs])
    // assess: three acked, nothing left leased or stored, the counts moved by three
    expect(acked).toBe(3)
    const stats = await readStats(s.redis, s.keys)
    expect(stats.queues['ack-once']).toEqual({ pending: 0, dead: 0, dispatched: 3 })
    expect(stats.inflight).toBe(0)
    expect(await s.redis.hlen(sh.jobs)).toBe(0)
    expect(await s.redis.hlen(sh.leases)).toBe(0)
  })

  it('takes an expired lease back with attempt + 1, and the stale token can neither ack nor release', async () => {
    // prepare: a scanner claims and then dies without acking
    await t.store.enqueue(job({ id: 'crashy' }))
    const [first] = await claimAll()
    expect(first).toMatchObject({ id: 'crashy', attempt: 1 })
    // act
    await sleep(200)
    const [second] = await claimAll()
    // assess
    expect(second).toMatchObject({ id: 'crashy', attempt: 2 })
    // a crash recovery keeps its due time as its place in a FIFO group's order (not its lease's end)
    expect(second!.orderMs).toBe(second!.dueMs)
    expect(second!.token).not.toBe(first!.token)
    expect(await leases.ack(shard, [first!])).toBe(0)
    expect(await leases.release(shard, [{ ...first!, error: 'x' }])).toMatchObject({ released: 0, dead: 0, retired: 0 })
    expect((await t.store.get('crashy'))!.status).toBe('dispatching')
    expect(await leases.ack(shard, [second!])).toBe(1)
    expect(await t.store.get('crashy')).toBeNull()
  })

  it('hands a backlog out in due-time order from buckets of many due jobs each, whatever size and hints each claim has', async () => {
    // prepare: 150 jobs in 3 buckets, due at 4 milliseconds (a dozen of one bucket in each: more than a claim reads
    // of a bucket at first), enqueued in reverse order; each claim of a size from the list, with the buckets of
    // the claim before as its hints (a claim of 1 carries one: the bucket after it is not among its keys)
    const s = ownStore({ shards: 1, buckets: 3 })
    const l = new Leases(s.redis, { leaseMs: 60_000, maxAttempts: 3, backoffBaseMs: 1, backoffMaxMs: 1 })
    const sh = s.keys.shards[0]!
    const at = Date.now() + 1_000
    const jobs = Array.from({ length: 150 }, (_, i) => ({ id: `m-${String(i).padStart(3, '0')}`, dueMs: at + (i % 4) }))
    await s.store.enqueueMany([...jobs].reverse().map(({ id, dueMs }) => job({ id, due: { atMs: dueMs } })))
    await sleep(at + 50 - Date.now())
    // act
    const claimed: string[] = []
    const sizes = [1, 7, 50, 3, 13]
    let hints = await l.seedHints(sh, 1)
    for (let c = 0; ; c++) {
      const limit = sizes[c % sizes.length]!
      const r = await l.claim(sh, hints, limit)
      hints = r.hints
      claimed.push(...r.jobs.map((j) => j.id))
      // assess: a claim takes its whole size while jobs are left (or asks for its missing hints first)
      if (r.jobs.length < limit && claimed.length < jobs.length) expect(r.again).toBe(true)
      if (!r.again && r.jobs.length === 0) break
    }
    // assess: every job once, by due time; within a bucket by due time and id (jobs of several buckets due in one
    // millisecond go bucket by bucket, each bucket's run as long as the bucket after it allows)
    const dueOf = new Map(jobs.map((j) => [j.id, j.dueMs]))
    expect([...claimed].sort()).toEqual(jobs.map((j) => j.id))
    const dues = claimed.map((id) => dueOf.get(id)!)
    expect(dues).toEqual([...dues].sort((a, b) => a - b))
    for (const bucket of ['0', '1', '2']) {
      const own = claimed.filter((id) => String(s.keys.locate(id).bucketNo) === bucket)
      expect(own).toEqual([...own].sort((a, b) => dueOf.get(a)! - dueOf.get(b)! || a.localeCompare(b)))
    }
  })

  it("empties a burst's buckets with one DEL a claim, not a ZREM a bucket, and takes every job once", async () => {
    // prepare: 300 jobs due in one millisecond over 1,024 buckets (one or two a bucket); every command Redis runs
    // (the scripts' own included) watched on each primary, those on this store's buckets kept
    const s = ownStore({ shards: 1, buckets: 1024 })
    const l = new Leases(s.redis, { leaseMs: 60_000, maxAttempts: 3, backoffBaseMs: 1, backoffMaxMs: 1 })
    const sh = s.keys.shards[0]!
    // three seconds of room: a job enqueued after `at` would be due at its own time, not in the same millisecond
    const at = Date.now() + 3_000
    await s.store.enqueueMany(Array.from({ length: 300 }, (_, i) => job({ id: `burst-${i}`, due: { atMs: at } })))
    await sleep(at + 20 - Date.now())
    const primaries = s.redis instanceof Cluster ? s.redis.nodes('master') : [s.redis as Redis]
    const monitors = await Promise.all(primaries.map((node) => monitorRedis(node.options.port!)))
    onTestFinished(() => {
      for (const m of monitors) m.stop()
    })
    const onBuckets: string[] = []
    const marker = `${sh.tag}:claims-done`
    const seen = monitors.map(
      (m) =>
        new Promise<void>((resolve) =>
          m.on(({ args }) => {
            if (args[1] === marker) resolve()
            else if (args.slice(1).some((a) => a.startsWith(`${sh.tag}:due:`))) onBuckets.push(args[0]!.toLowerCase())
          }),
        ),
    )
    // act: claims of 100, each with the previous one's hints
    const claimed: string[] = []
    let claims = 0
    let hints = await l.seedHints(sh, 100)
    for (;;) {
      const r = await l.claim(sh, hints, 100)
      claims++
      hints = r.hints
      claimed.push(...r.jobs.map((j) => j.id))
      if (!r.again && r.jobs.length === 0) break
    }
    // The monitors' last lines may still be on their way: each shows a PING sent after the claims once it showed them.
    await Promise.all(primaries.map((node) => node.ping(marker)))
    await Promise.all(seen)
    // assess: every job once, no bucket left; a bucket is only ZREMed when a claim's limit split it (one a claim at
    // most), the emptied ones go in DELs (before: a ZREM each, ~260)
    expect([...claimed].sort()).toEqual(Array.from({ length: 300 }, (_, i) => `burst-${i}`).sort())
    expect(await s.redis.zcard(sh.index)).toBe(0)
    expect(onBuckets.filter((c) => c === 'zrem').length).toBeLessThanOrEqual(claims)
    expect(onBuckets.filter((c) => c === 'del').length).toBeGreaterThan(0)
    expect(onBuckets.filter((c) => c === 'del').length).toBeLessThanOrEqual(claims * 2)
  })

  it('drains a 20,000-job backlog in bounded batches', async () => {
    // prepare
    const s = ownStore({ shards: 1, buckets: 256 })
    const l = new Leases(s.redis, { leaseMs: 60_000, maxAttempts: 3, backoffBaseMs: 1, backoffMaxMs: 1 })
    const sh = s.keys.shards[0]!
    for (let i = 0; i < 20; i++) {
      await s.store.enqueueMany(Array.from({ length: 1000 }, (_, k) => job({ id: `b-${i}-${k}` })))
    }
    // act
    const sizes: number[] = []
    const seen = new Set<string>()
    let hints = await l.seedHints(sh, 250)
    for (;;) {
      const r = await l.claim(sh, hints, 250)
      hints = r.hints
      if (r.jobs.length) sizes.push(r.jobs.length)
      r.jobs.forEach((j) => seen.add(j.id))
      await l.ack(sh, r.jobs)
      if (!r.again && r.jobs.length === 0) break
    }
    // assess
    expect(seen.size).toBe(20_000)
    expect(Math.max(...sizes)).toBeLessThanOrEqual(250)
    expect(sizes.length).toBeGreaterThanOrEqual(80)
    expect((await s.store.stats()).queues.orders).toMatchObject({ pending: 0, dispatched: 20_000 })
  })

  it("retries released jobs at the absolute times given, whichever shard's release runs when, and claims report them", async () => {
    // prepare: a and b of one FIFO group on two shards (two masters of a Cluster), claimed; the scanner fixes their
    // retry times once, b right behind a
    const s = ownStore({ shards: 2, buckets: 8 })
    const l = new Leases(s.redis, { leaseMs: 5_000, maxAttempts: 3, backoffBaseMs: 50, backoffMaxMs: 50 })
    const ids = Array.from({ length: 40 }, (_, i) => `grp-${i}`)
    const a = ids.find((id) => s.keys.locate(id).shard.shard === 0)!
    const b = ids.find((id) => s.keys.locate(id).shard.shard === 1)!
    await s.store.enqueueMany([a, b].map((id) => job({ id, queue: 'events.fifo', groupId: 'g' })))
    const [sh0, sh1] = s.keys.shards as [(typeof s.keys.shards)[0], (typeof s.keys.shards)[0]]
    const [claimedA] = (await l.claim(sh0, await l.seedHints(sh0, 8), 8)).jobs
    const [claimedB] = (await l.claim(sh1, await l.seedHints(sh1, 8), 8)).jobs
    const retryA = Math.round(l.redisNowMs()) + 300
    // act: b's shard releases first, a's 150 ms later (a slow master, a Redis error retried)
    await l.release(sh1, [{ ...claimedB!, error: 'throttled', jobsFault: false, retryAtMs: retryA + 1 }])
    await sleep(150)
    await l.release(sh0, [{ ...claimedA!, error: 'throttled', jobsFault: false, retryAtMs: retryA }])
    // assess: each waits for its own time, not the release's time + a delay, and comes back with it as its place
    expect(Number(await s.redis.zscore(sh0.inflight, a))).toBe(retryA)
    expect(Number(await s.redis.zscore(sh1.inflight, b))).toBe(retryA + 1)
    await sleep(retryA + 20 - l.redisNowMs())
    const [againA] = (await l.claim(sh0, [], 8)).jobs
    const [againB] = (await l.claim(sh1, [], 8)).jobs
    expect(againA).toMatchObject({ id: a, attempt: 2, dueMs: claimedA!.dueMs, orderMs: retryA })
    expect(againB).toMatchObject({ id: b, attempt: 2, dueMs: claimedB!.dueMs, orderMs: retryA + 1 })
  })

  it("fixes each refused job's retry time on its own shard's clock: a master 5 s behind gets its time, not another's", async () => {
    // prepare: two shards (two masters of a Cluster); this process's clock is read as 5 s ahead while shard 1's claim
    // runs, which is what a master whose clock is 5 s behind looks like to the scanner
    const s = ownStore({ shards: 2, buckets: 8 })
    let skewMs = 0
    const l = new Leases(s.redis, {
      leaseMs: 5_000,
      maxAttempts: 3,
      backoffBaseMs: 100,
      backoffMaxMs: 100,
      localClock: () => Date.now() + skewMs,
    })
    const ids = Array.from({ length: 40 }, (_, i) => `own-clock-${i}`)
    const a = ids.find((id) => s.keys.locate(id).shard.shard === 0)!
    const b = ids.find((id) => s.keys.locate(id).shard.shard === 1)!
    await s.store.enqueueMany([a, b].map((id) => job({ id })))
    const [sh0, sh1] = s.keys.shards as [(typeof s.keys.shards)[0], (typeof s.keys.shards)[0]]
    const [claimedA] = (await l.claim(sh0, await l.seedHints(sh0, 8), 8)).jobs
    skewMs = 5_000
    const [claimedB] = (await l.claim(sh1, await l.seedHints(sh1, 8), 8)).jobs
    skewMs = 0
    // act
    const retryA = l.retryAt(claimedA!)
    const retryB = l.retryAt(claimedB!)
    // assess: each after its backoff (50-100 ms) on its own master's clock: b's 5 s below a's
    expect(retryA - retryB).toBeGreaterThan(5_000 - 100)
    expect(retryA - retryB).toBeLessThan(5_000 + 100)
  })

  it("moves retry times far past the primary's clock earlier, keeping their order, and leaves past ones as given", async () => {
    // prepare: three jobs of one FIFO group claimed while the scanner read Redis's clock an hour ahead (then the
    // primary failed over to one an hour behind, and no claim has sampled it yet)
    const s = ownStore({ shards: 1, buckets: 8 })
    let skewMs = -3_600_000
    const options = { leaseMs: 5_000, maxAttempts: 3, backoffBaseMs: 100, backoffMaxMs: 100 }
    const l = new Leases(s.redis, { ...options, localClock: () => Date.now() + skewMs })
    const sh = s.keys.shards[0]!
    await s.store.enqueueMany(
      ['far-1', 'far-2', 'far-3', 'gone-by'].map((id) => job({ id, queue: 'events.fifo', groupId: 'g' })),
    )
    const claimed = (await l.claim(sh, await l.seedHints(sh, 8), 8)).jobs
    const [first, second, third] = ['far-1', 'far-2', 'far-3'].map((id) => claimed.find((j) => j.id === id)!)
    const goneBy = claimed.find((j) => j.id === 'gone-by')!
    skewMs = 0
    const retries = [
      { ...first!, retryAtMs: l.retryAt(first!) },
      { ...second!, retryAtMs: l.retryAt(second!, { job: first!, place: 1 }) },
      { ...third!, retryAtMs: l.retryAt(third!, { job: first!, place: 2 }) },
    ]
    const [sec, micro] = await s.redis.time()
    const redisNow = Number(sec) * 1_000 + Math.floor(Number(micro) / 1_000)
    expect(retries[0]!.retryAtMs).toBeGreaterThan(redisNow + 3_500_000)
    // act: one release of the three; another of a job given back at a past time (a claim fence, a run's end)
    await l.release(
      sh,
      retries.map((r) => ({ ...r, error: 'throttled', jobsFault: false })),
    )
    await l.release(sh, [{ ...goneBy, error: 'given back', jobsFault: false, retryAtMs: redisNow - 1_000 }])
    // assess: the latest lands at most the longest backoff and a lease ahead, the others 1 ms apart before it
    const scores = await Promise.all(
      ['far-1', 'far-2', 'far-3'].map(async (id) => Number(await s.redis.zscore(sh.inflight, id))),
    )
    expect(scores[2]).toBeLessThanOrEqual(redisNow + options.backoffMaxMs + options.leaseMs + 1_000)
    expect(scores[2]).toBeGreaterThanOrEqual(redisNow + options.backoffMaxMs + options.leaseMs)
    expect(scores).toEqual([scores[2]! - 2, scores[2]! - 1, scores[2]])
    expect(Number(await s.redis.zscore(sh.inflight, 'gone-by'))).toBe(redisNow - 1_000)
  })

  it('retries a released job after its backoff and sends it to the dead set after the last attempt', async () => {
    // a backoff of 1-2 s (equal jitter): the claim right after a release comes well within it, also on a loaded
    // machine (with 250-500 ms, a claim held up that long would take the job again)
    const slow = new Leases(t.redis, { leaseMs: 150, maxAttempts: 3, backoffBaseMs: 2_000, backoffMaxMs: 2_000 })
    await t.store.enqueue(job({ id: 'refused', queue: 'refusing' }))
    for (let attempt = 1; attempt <= 3; attempt++) {
      const claimed = (await claimAll(100, slow)).filter((j) => j.id === 'refused')
      expect(claimed.map((j) => j.attempt)).toEqual([attempt])
      const r = await slow.release(shard, [{ ...claimed[0]!, error: `no queue (try ${attempt})` }])
      expect(r).toMatchObject(
        attempt < 3 ? { released: 1, dead: 0, retired: 0 } : { released: 0, dead: 1, deadIds: ['refused'], retired: 0 },
      )
      if (attempt < 3) {
        // still waiting for its backoff: not handed out again yet
        expect((await claimAll(100, slow)).map((j) => j.id)).not.toContain('refused')
        await sleep(2_050)
      }
    }
    const view = await t.store.get('refused')
    expect(view).toMatchObject({ status: 'dead', lastError: { attempts: 3, message: 'no queue (try 3)' } })
    expect((await t.store.stats()).queues.refusing).toMatchObject({ pending: 0, dead: 1 })
  })

  it('keeps retrying a job whose sends failed only for reasons that are not its fault, past the maximum attempts', async () => {
    // prepare
    await t.store.enqueue(job({ id: 'outage' }))
    // act: five transient failures (SQS down), with at most 3 attempts allowed
    for (let attempt = 1; attempt <= 5; attempt++) {
      await sleep(60)
      const [claimed] = (await claimAll()).filter((j) => j.id === 'outage')
      expect(claimed!.attempt).toBe(attempt)
      expect(
        await leases.release(shard, [
          { ...claimed!, error: 'SendMessageBatch failed: ECONNREFUSED', jobsFault: false },
        ]),
      ).toMatchObject({ released: 1, dead: 0, retired: 0 })
    }
    // assess: still scheduled for another try, with its error on view
    expect(await t.store.get('outage')).toMatchObject({
      status: 'scheduled',
      attempts: 5,
      lastError: { message: expect.stringMatching(/ECONNREFUSED/) },
    })
    await sleep(60)
    const [again] = (await claimAll()).filter((j) => j.id === 'outage')
    await leases.ack(shard, [again!])
  })

  it('counts crash recoveries apart from dispatch attempts: retries after an outage and one lost scanner do not kill a job', async () => {
    // prepare: five transient refusals (attempts 1-5, past the 3 allowed), then a 6th claim whose scanner dies
    await t.store.enqueue(job({ id: 'outage-then-crash', queue: 'counted' }))
    await refuseTransiently('outage-then-crash', 5, 'SendMessageBatch failed: ECONNREFUSED')
    await sleep(60)
    expect((await claimAll()).filter((j) => j.id === 'outage-then-crash')).toHaveLength(1)
    // act: the lease expires: one crash recovery; then two more scanners die holding it
    const recoveries: number[] = []
    for (let crash = 1; crash <= 3; crash++) {
      await sleep(200)
      recoveries.push((await claimAll()).filter((j) => j.id === 'outage-then-crash').length)
    }
    // assess: recovered after the 1st and 2nd expired lease; the 3rd (MAX_DISPATCH_ATTEMPTS = 3) sends it to the dead set
    expect(recoveries).toEqual([1, 1, 0])
    expect(await t.store.get('outage-then-crash')).toMatchObject({
      status: 'dead',
      lastError: {
        attempts: 8,
        message: 'lease expired 3 times: the scanners holding it stopped before acknowledging',
      },
    })
  })

  it("counts only refusals that are the job's fault toward the dead set, not the transient ones before them", async () => {
    // prepare: four transient refusals
    await t.store.enqueue(job({ id: 'transient-then-fault', queue: 'counted' }))
    await refuseTransiently('transient-then-fault', 4, 'throttled')
    // act: then SQS refuses it as the sender's fault, twice: 2 of the 3 allowed
    const outcomes = []
    for (let fault = 1; fault <= 2; fault++) {
      await sleep(60)
      const [claimed] = (await claimAll()).filter((j) => j.id === 'transient-then-fault')
      outcomes.push(await leases.release(shard, [{ ...claimed!, error: 'InvalidParameterValue' }]))
    }
    // assess: alive, waiting for its 7th attempt
    expect(outcomes).toMatchObject([
      { released: 1, dead: 0, retired: 0 },
      { released: 1, dead: 0, retired: 0 },
    ])
    expect(await t.store.get('transient-then-fault')).toMatchObject({ status: 'scheduled', attempts: 6 })
    await t.store.cancel('transient-then-fault')
  })

  it('answers cancel, upsert and get in each state: scheduled, dispatching, waiting for retry, dead, gone', async () => {
    // scheduled
    await t.store.enqueue(job({ id: 'st', payloadJson: '1', due: { delayMs: 100_000 } }))
    expect((await t.store.get('st'))!.status).toBe('scheduled')
    expect((await t.store.upsert(job({ id: 'st', payloadJson: '2' }))).status).toBe('replaced')
    // dispatching: too late to change or cancel
    const [claimed] = (await claimAll()).filter((j) => j.id === 'st')
    expect(claimed!.payloadJson).toBe('2')
    expect((await t.store.get('st'))!.status).toBe('dispatching')
    await expect(t.store.cancel('st')).rejects.toBeInstanceOf(JobDispatchingError)
    await expect(t.store.upsert(job({ id: 'st' }))).rejects.toBeInstanceOf(JobDispatchingError)
    // waiting for a retry after SQS refused it: scheduled again, with the error; may be cancelled
    await leases.release(shard, [{ ...claimed!, error: 'throttled' }])
    expect(await t.store.get('st')).toMatchObject({ status: 'scheduled', lastError: { message: 'throttled' } })
    expect((await t.store.upsert(job({ id: 'st', payloadJson: '3' }))).status).toBe('replaced')
    const [again] = (await claimAll()).filter((j) => j.id === 'st')
    expect(again).toMatchObject({ payloadJson: '3', attempt: 1 })
    // gone: in SQS now
    await leases.ack(shard, [again!])
    expect(await t.store.get('st')).toBeNull()
    await expect(t.store.cancel('st')).rejects.toBeInstanceOf(JobNotFoundError)
    expect((await t.store.upsert(job({ id: 'st' }))).status).toBe('created')
    await t.store.cancel('st')
  })
})
