// One FIFO group reaches SQS in due-time order whatever the sharding: the group's jobs hash to every shard (by id),
// and each shard is claimed on its own, yet the messages arrive in the order of their due times (src/scan/loop/fifo-merge.ts).
// Runs on one Redis and, in the "cluster" project, on the 3-master Redis Cluster. The backlogs are built before the
// scanner starts, so what is asserted never depends on when a claim happens to run.
import { sleep } from '../../devkit/sleep'
import { afterAll, describe, expect, it } from 'vitest'
import { defaultLog } from '../../src/logger'
import { FifoHold } from '../../src/scan/loop/fifo-hold'
import { InFlight } from '../../src/scan/loop/in-flight'
import { groupJob, job, testStore } from '../support/engine'
import { pendingCount, testScanner } from '../support/scanner'
import { createQueue, drainInOrder, sqsClient } from '../support/sqs'
import { batchEntries } from '../../src/sqs/prebuilt-body'

const sqs = sqsClient()
afterAll(() => sqs.destroy())

const SHARDS = 4
/**
 * A scanner whose leases last a minute (the tests' default is 5 s): on a loaded machine these runs took 30-40 s, and
 * jobs held for the shard before theirs were claimed again when their leases ran out, out of order. What these
 * prove is the merge, not lease expiry (the dead scanner below sets its own).
 */
const fifoScanner = (t: Parameters<typeof testScanner>[0], o: Parameters<typeof testScanner>[1]) =>
  testScanner(t, { leaseMs: 60_000, ...o })
const JOBS = 200

/**
 * JOBS jobs of group "g", due 5 ms apart from `firstDueMs`, enqueued in a shuffled order; their order in the group
 * (groupOrder): by the due times stored, which are the ones asked for unless an enqueue reached its shard after them
 * (a loaded machine: 200 enqueues have run 1.5 s late), when they are that shard's "now".
 */
async function enqueueGroup(t: ReturnType<typeof testStore>, firstDueMs: number) {
  const jobs = Array.from({ length: JOBS }, (_, i) => groupJob(i, firstDueMs + 5 * i))
  const shuffled = jobs.map((j, i) => ({ j, k: (i * 7919) % JOBS })).sort((a, b) => a.k - b.k)
  const results = await t.store.enqueueMany(shuffled.map((s) => s.j))
  expect(results.every((r) => 'status' in r && r.status === 'created')).toBe(true)
  // the group really is spread: every shard holds some of it
  const perShard = new Set(jobs.map((j) => t.keys.locate(j.id).shard.shard))
  expect(perShard.size).toBe(SHARDS)
  return groupOrder(t, results)
}

/**
 * The group's order of jobs "evt-<n>" by the due times the enqueue stored (see enqueueGroup), and each job's place in
 * it: its stored due time and shard. Jobs of one shard stored in one millisecond (late enqueues) go in their claim's
 * order, which depends on the buckets' other jobs: any order of those is the group's order here.
 */
function groupOrder(t: ReturnType<typeof testStore>, results: readonly object[]) {
  const stored = new Map<number, number>()
  for (const r of results)
    if ('dueMs' in r && 'id' in r) stored.set(Number((r.id as string).slice(4)), r.dueMs as number)
  const shardOf = (n: number) => t.keys.locate(`evt-${n}`).shard.shard
  const order = [...stored.keys()].sort((a, b) => stored.get(a)! - stored.get(b)! || shardOf(a) - shardOf(b) || a - b)
  return { order, place: (n: number) => `${stored.get(n)} ${shardOf(n)}` }
}

/** The arrived jobs are every job of the group once, in its order (groupOrder). */
function expectGroupOrder(arrived: number[], group: ReturnType<typeof groupOrder>) {
  expect([...arrived].sort((a, b) => a - b)).toEqual([...group.order].sort((a, b) => a - b))
  expect(arrived.map(group.place)).toEqual(group.order.map(group.place))
}

/**
 * SQS refuses, as a whole (throttled), the first send that carries job `id`: `refused` says it happened, `ids` are
 * the jobs of that call.
 */
function throttleFirstSendOf(s: ReturnType<typeof fifoScanner>, id: string) {
  const throttled = { refused: false, ids: [] as string[] }
  s.sqs.middlewareStack.add((next) => async (args) => {
    const ids = batchEntries(args.input as object).map((e) => JSON.parse(e.MessageBody!).id as string)
    if (!throttled.refused && ids.includes(id)) {
      Object.assign(throttled, { refused: true, ids })
      throw Object.assign(new Error('Rate exceeded'), {
        name: 'ThrottlingException',
        $metadata: { httpStatusCode: 400 },
      })
    }
    return next(args)
  })
  return throttled
}

async function arrivedOrder(url: string): Promise<number[]> {
  return (await drainInOrder(sqs, url)).map((m) => JSON.parse(m.Body!).payload as number)
}

// The tests of this file run side by side (each its own key prefix and queues): they wait on real time, not the CPU.
describe.concurrent('FIFO group order across shards', () => {
  it.each([
    {
      what: `drains a backlog of one group over ${SHARDS} shards in due-time order, in claims cut short by their limit`,
      claims: { claimBatchSize: 16 },
    },
    {
      // room for 8 jobs, claims of 4: two shards' claims fill it with jobs that wait for the other two
      what: 'drains such a backlog when held jobs fill the scanner: the shards behind them claim all the same',
      claims: { claimBatchSize: 4, maxInFlight: 8 },
    },
  ])('$what', async ({ claims }) => {
    // prepare: every job is due before the scanner starts (a due time in the past would mean "now" for all of them)
    const t = testStore({ shards: SHARDS })
    const q = await createQueue(sqs, 'events.fifo')
    const firstDue = Date.now() + 1_000
    const group = await enqueueGroup(t, firstDue)
    await sleep(firstDue + 5 * JOBS + 100 - Date.now())
    const s = fifoScanner(t, { queues: { 'events.fifo': q.url }, ...claims })
    // act
    await s.runUntil(async () => (await pendingCount(t.store)) === 0, 20_000)
    // assess
    expectGroupOrder(await arrivedOrder(q.url), group)
    await s.close()
    await t.close()
  })

  it(`keeps the order of one group over ${SHARDS} shards with a running scanner and a 1 s dispatch window`, async () => {
    // prepare: the scanner runs before the first job is due; with the window each shard claims its jobs in batches
    // that overlap the other shards' in time
    const t = testStore({ shards: SHARDS })
    const q = await createQueue(sqs, 'events.fifo')
    const s = fifoScanner(t, { queues: { 'events.fifo': q.url }, dispatchWindowMs: 1_000, claimBatchSize: 32 })
    const firstDue = Date.now() + 1_500
    const group = await enqueueGroup(t, firstDue)
    // act
    await s.runUntil(async () => (await pendingCount(t.store)) === 0, 20_000)
    // assess
    expectGroupOrder(await arrivedOrder(q.url), group)
    await s.close()
    await t.close()
  })

  it('holds the later jobs of a group behind one SQS refused, until its retry is accepted', async () => {
    // prepare: a running scanner; SQS refuses the first send of evt-0 (throttled); the group's next jobs fall due
    // 40 ms apart, well before evt-0's retry (the backoff is 500-1,000 ms)
    const t = testStore({ shards: SHARDS })
    const q = await createQueue(sqs, 'events.fifo')
    const s = fifoScanner(t, {
      queues: { 'events.fifo': q.url },
      backoffBaseMs: 1_000,
      backoffMaxMs: 1_000,
    })
    const throttled = throttleFirstSendOf(s, 'evt-0')
    const firstDue = Date.now() + 800
    const jobs = Array.from({ length: 6 }, (_, i) => groupJob(i, firstDue + 40 * i))
    const group = groupOrder(t, await t.store.enqueueMany(jobs))
    // act
    await s.runUntil(async () => (await pendingCount(t.store)) === 0, 15_000)
    // assess: the refusal happened, and the group still arrived in order, evt-0 first
    expect(throttled.refused).toBe(true)
    expectGroupOrder(await arrivedOrder(q.url), group) // [0, 1, 2, 3, 4, 5] when the enqueue came in time
    await s.close()
    await t.close()
  })

  // On the Cluster this scenario once failed 2 of 4 loaded runs ([1,2,3,4,5,0]): evt-1 and evt-0 come back 1 ms apart
  // on two shards, whose claims race; the one claimed first went to its lane ahead of the other and was held again,
  // a whole backoff more. Retries now keep their retry time as their place in the group (absolute, fixed once by the
  // scanner: src/scan/claims/backoff.ts), and the FIFO merge waits for the shard whose retry comes first.
  it('retries two jobs of a group refused in one call in their order, and the later jobs behind both', async () => {
    // prepare: evt-0 and evt-1 (two shards) due in the same millisecond, before the scanner starts: its first claims
    // bring both, and they go in one SendMessageBatch; evt-2..5 fall due after them. SQS refuses that first call as a
    // whole (throttled)
    const t = testStore({ shards: SHARDS })
    expect(t.keys.locate('evt-0').shard.shard).not.toBe(t.keys.locate('evt-1').shard.shard)
    const q = await createQueue(sqs, 'events.fifo')
    const s = fifoScanner(t, { queues: { 'events.fifo': q.url }, backoffBaseMs: 1_000, backoffMaxMs: 1_000 })
    const throttled = throttleFirstSendOf(s, 'evt-0')
    const firstDue = Date.now() + 500
    const dueOf = (i: number) => firstDue + (i < 2 ? 0 : 40 * i)
    const enqueued = await t.store.enqueueMany(Array.from({ length: 6 }, (_, i) => groupJob(i, dueOf(i))))
    // [1, 0, 2, 3, 4, 5] when the enqueue came in time (evt-1's shard is the lower one)
    const group = groupOrder(t, enqueued)
    await sleep(firstDue + 10 - Date.now())
    // act
    await s.runUntil(async () => (await pendingCount(t.store)) === 0, 15_000)
    // assess: both were in the refused call, and the group arrived in the order it was claimed and sent in (jobs due
    // in one millisecond go shard by shard), evt-2..5 after both
    const sentFirst = throttled.ids.filter((id) => id === 'evt-0' || id === 'evt-1').map((id) => Number(id.slice(4)))
    expect(sentFirst).toEqual(group.order.filter((n) => n < 2))
    expectGroupOrder(await arrivedOrder(q.url), group)
    await s.close()
    await t.close()
  })

  it('gives a held FIFO job back, due at once, when the run ends before the other shards were claimed', async () => {
    // prepare: shard 0 of 2 is claimed and brings a FIFO job; shard 1 never is
    const t = testStore({ shards: 2 })
    const q = await createQueue(sqs, 'events.fifo')
    const ids = Array.from({ length: 40 }, (_, i) => `held-${i}`)
    const id = ids.find((i) => t.keys.locate(i).shard.shard === 0)!
    await t.store.enqueue(job({ id, queue: 'events.fifo', groupId: 'g', payloadJson: '0' }))
    const s = fifoScanner(t, { queues: { 'events.fifo': q.url } })
    const shards = t.keys.shards.map((keys) => ({ keys, hints: [], sleepingUntil: 0 }))
    const inFlight = new InFlight(100)
    const hold = new FifoHold(shards, inFlight)
    const claim = await s.leases.claim(shards[0]!.keys, await s.leases.seedHints(shards[0]!.keys, 10), 10)
    // act
    const ready = hold.take(0, claim)
    hold.giveBack(s.leases, defaultLog())
    await inFlight.drain()
    // assess: not sent, but scheduled again, due now, with the reason; the next run sends it
    expect(ready).toEqual([])
    expect(await t.store.get(id)).toMatchObject({
      status: 'scheduled',
      lastError: { message: expect.stringContaining('FIFO order') },
    })
    await s.runUntil(async () => (await pendingCount(t.store)) === 0, 5_000)
    expect(await arrivedOrder(q.url)).toEqual([0])
    await s.close()
    await t.close()
  })

  it('sends a group due in one millisecond shard by shard, in claim order, while claiming: never all of it at once', async () => {
    // prepare: 1,000 jobs of one group due in the same millisecond over 4 shards; room for 40, claims of 10
    const t = testStore({ shards: SHARDS })
    const q = await createQueue(sqs, 'events.fifo')
    // (3 s ahead: a due time the enqueue reaches late means "now", and the jobs would no longer share their
    // millisecond; 1,000 enqueues took over 1 s on a loaded machine. Should it come later still, the order expected
    // is that of the due times stored)
    const at = Date.now() + 3_000
    const jobs = Array.from({ length: 1_000 }, (_, i) =>
      job({ id: `ms-${i}`, queue: 'events.fifo', groupId: 'g', payloadJson: `"ms-${i}"`, due: { atMs: at } }),
    )
    const stored = new Map<string, number>()
    for (let i = 0; i < jobs.length; i += 100) {
      for (const r of await t.store.enqueueMany(jobs.slice(i, i + 100))) if ('dueMs' in r) stored.set(r.id, r.dueMs)
    }
    await sleep(Math.max(...stored.values()) + 100 - Date.now())
    const s = fifoScanner(t, { queues: { 'events.fifo': q.url }, claimBatchSize: 10, maxInFlight: 40 })
    let mostLeased = 0
    // act: the run, with the leased jobs counted every 10 ms
    const run = s.runUntil(async () => (await pendingCount(t.store)) === 0, 30_000)
    let done = false
    void run.finally(() => (done = true))
    while (!done) {
      mostLeased = Math.max(mostLeased, (await t.store.stats()).inflight)
      await sleep(10)
    }
    await run
    // assess: shard by shard, and within a shard bucket by bucket (bucket numbers compare as text) and by id. Should
    // the enqueue have come so late that the due times stored differ, by those times and shard by shard only (a
    // shard's claims then take a bucket's jobs of a millisecond with its earlier ones: jobs due in one millisecond
    // on one shard have no other order)
    const place = (id: string) => {
      const { shard, bucketNo } = t.keys.locate(id)
      return [stored.get(id)!, shard.shard, String(bucketNo), id] as const
    }
    const expected = jobs
      .map((j) => j.id)
      .sort((a, b) => {
        const [pa, pb] = [place(a), place(b)]
        return (
          pa[0] - pb[0] || pa[1] - pb[1] || (pa[2] < pb[2] ? -1 : pa[2] > pb[2] ? 1 : 0) || (pa[3] < pb[3] ? -1 : 1)
        )
      })
    const arrived = (await drainInOrder(sqs, q.url)).map((m) => JSON.parse(m.Body!).payload as string)
    const oneMs = new Set(stored.values()).size === 1
    const key = (id: string) => (oneMs ? id : place(id).slice(0, 2).join(' '))
    expect([...arrived].sort()).toEqual([...expected].sort())
    expect(arrived.map(key)).toEqual(expected.map(key))
    expect(mostLeased).toBeLessThan(200)
    await s.close()
    await t.close()
  }, 60_000)

  // A CI run at load ~6 failed the first case when it expected [0, 1, ..., 39] (got 0,1,18,9,14,5,10,11,4,8,...): the
  // enqueue reached the masters 0.7-0.85 s after firstDue was fixed, only 0.5 s ahead, so most due times asked for
  // were past and stored as each shard's "now" (docs/api.md: a time in the past means now), and the group's order was
  // that of the stored times, shard by shard, which is what arrived. The second case makes the enqueue late on purpose.
  it.each([
    { when: 'enqueued in time', lateMs: 0 },
    { when: "enqueued after most of the due times it asks for (stored as its shards' now)", lateMs: 700 },
  ])(
    "sends a dead scanner's claimed jobs first and in order, in a run that starts after their leases ended: $when",
    async ({ lateMs }) => {
      // prepare: 40 jobs of one group, all due; a scanner claims the first few of every shard (300 ms leases) and dies
      const t = testStore({ shards: SHARDS })
      const q = await createQueue(sqs, 'events.fifo')
      const firstDue = Date.now() + 500
      const jobs = Array.from({ length: 40 }, (_, i) => groupJob(i, firstDue + 10 * i))
      await sleep(lateMs)
      const enqueued = await t.store.enqueueMany(jobs)
      // [0, 1, ..., 39] when the enqueue came in time
      const group = groupOrder(t, enqueued)
      const stored = enqueued.map((r) => ('dueMs' in r ? r.dueMs : Number.NaN))
      if (lateMs > 0) expect(stored.filter((due, i) => due > firstDue + 10 * i).length).toBeGreaterThan(10)
      await sleep(Math.max(...stored) + 50 - Date.now())
      const dead = testScanner(t, { queues: { 'events.fifo': q.url }, leaseMs: 300 })
      let leased = 0
      for (const shard of t.keys.shards) {
        leased += (await dead.leases.claim(shard, await dead.leases.seedHints(shard, 64), 3)).jobs.length
      }
      await dead.close()
      expect(leased).toBe(3 * SHARDS)
      await sleep(400)
      // act: the next run
      const s = fifoScanner(t, { queues: { 'events.fifo': q.url } })
      await s.runUntil(async () => (await pendingCount(t.store)) === 0, 10_000)
      // assess
      expectGroupOrder(await arrivedOrder(q.url), group)
      await s.close()
      await t.close()
    },
  )
})
