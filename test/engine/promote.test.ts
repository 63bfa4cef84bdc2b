// Run now: one pending job made due at once (the same job: payload, creation time, version), or every pending job due
// before a time, in bounded script runs that resume from a cursor, over every shard (on the Cluster: several masters).
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { JobDeadError, JobDispatchingError, JobNotFoundError, ValidationError } from '../../src/errors'
import { Leases } from '../../src/scan/claims/leases'
import { Promoter } from '../../src/store/promote'
import { BYTES_PER_RUN, JOBS_PER_RUN } from '../../src/store/scripts/promote-due'
import { job, testStore } from '../support/engine'

const HOUR = 3_600_000
let t: ReturnType<typeof testStore>
let leases: Leases
let promoter: Promoter

function setUp(options: { shards?: number; buckets?: number } = {}) {
  t = testStore(options)
  leases = new Leases(t.redis, { leaseMs: 10_000, maxAttempts: 1, backoffBaseMs: 1, backoffMaxMs: 1 })
  promoter = new Promoter(t.store)
}
afterEach(() => t.close())

/** Every job a scanner could claim now, over all shards (claimed, so they leave the pending list). */
async function claimable(): Promise<string[]> {
  const ids: string[] = []
  for (const shard of t.keys.shards) {
    const r = await leases.claim(shard, await leases.seedHints(shard, 2_000), 2_000)
    ids.push(...r.jobs.map((j) => j.id))
  }
  return ids.sort()
}

describe('run one job now', () => {
  beforeEach(() => setUp({ shards: 1, buckets: 4 }))

  it('makes a job due in an hour due now, unchanged otherwise, and a scanner claims it', async () => {
    // prepare
    const stored = await t.store.enqueue(job({ id: 'later', payloadJson: '{"a":1}', due: { delayMs: HOUR } }))
    expect(await claimable()).toEqual([])
    // act
    const promoted = await promoter.promote('later')
    // assess: due now on Redis's clock, the hour earlier than before; the same job (payload, creation time)
    expect(promoted.previousRunAtMs).toBe(stored.dueMs)
    expect(stored.dueMs - promoted.runAtMs).toBeGreaterThan(HOUR - 5_000)
    expect(await t.store.get('later')).toMatchObject({
      status: 'scheduled',
      payload: { a: 1 },
      createdAt: new Date(stored.createdAtMs).toISOString(),
      runAt: new Date(promoted.runAtMs).toISOString(),
    })
    expect(await claimable()).toEqual(['later'])
  })

  it('answers 409 for a job a scanner holds, and leaves it to that scanner', async () => {
    // prepare: claimed (being sent)
    await t.store.enqueue(job({ id: 'held' }))
    expect(await claimable()).toEqual(['held'])
    // act + assess
    await expect(promoter.promote('held')).rejects.toBeInstanceOf(JobDispatchingError)
    expect((await t.store.get('held'))?.status).toBe('dispatching')
  })

  it('refuses a dead job (the dead set retries it) and an unknown one; a due job stays as it is', async () => {
    // prepare: one dead, one due already
    await t.store.enqueue(job({ id: 'dead' }))
    const [claimed] = (await leases.claim(t.keys.shards[0]!, await leases.seedHints(t.keys.shards[0]!, 5), 5)).jobs
    await leases.release(t.keys.shards[0]!, [{ ...claimed!, error: 'refused' }])
    const due = await t.store.enqueue(job({ id: 'due-now' }))
    // act + assess
    await expect(promoter.promote('dead')).rejects.toBeInstanceOf(JobDeadError)
    await expect(promoter.promote('nobody')).rejects.toBeInstanceOf(JobNotFoundError)
    expect(await promoter.promote('due-now')).toEqual({
      id: 'due-now',
      runAtMs: due.dueMs,
      previousRunAtMs: due.dueMs,
    })
    expect((await t.store.get('dead'))?.status).toBe('dead')
  })
})

describe('run now every job due before a time', () => {
  it('moves the jobs due before the time on every shard, and none due after it', async () => {
    // prepare: 40 jobs due within the hour and 40 in two hours, over the shards (3 masters on the Cluster)
    setUp({ buckets: 8 })
    const soon = Array.from({ length: 40 }, (_, i) => job({ id: `soon-${i}`, due: { delayMs: HOUR / 2 + i } }))
    const late = Array.from({ length: 40 }, (_, i) => job({ id: `late-${i}`, due: { delayMs: 2 * HOUR + i } }))
    await t.store.enqueueMany([...soon, ...late])
    // act
    const result = await promoter.promoteDue({ beforeMs: Date.now() + HOUR })
    // assess
    expect(result).toEqual({ promoted: 40, cursor: null })
    expect(await claimable()).toEqual(soon.map((j) => j.id).sort())
  })

  it('stops after the runs it may make with a cursor, and the next call goes on from it to the end', async () => {
    // prepare: more jobs in one bucket than one run reads
    setUp({ shards: 1, buckets: 1 })
    const n = 2 * JOBS_PER_RUN + 100
    await t.store.enqueueMany(Array.from({ length: n }, (_, i) => job({ id: `j-${i}`, due: { delayMs: HOUR + i } })))
    // act: one run, then the rest from its cursor
    const first = await promoter.promoteDue({ beforeMs: Date.now() + 2 * HOUR, maxRuns: 1 })
    const rest = await promoter.promoteDue({ beforeMs: Date.now() + 2 * HOUR, cursor: first.cursor })
    // assess: one run moved its share only; together every job, each once
    expect(first).toEqual({ promoted: JOBS_PER_RUN, cursor: expect.stringMatching(/^0\.0\.\d{13}\.j-499$/) })
    expect(rest).toEqual({ promoted: n - JOBS_PER_RUN, cursor: null })
    expect((await claimable()).length).toBe(n)
  })

  it('moves one queue’s jobs only, passing over the others’ in the bucket where a run stopped', async () => {
    // prepare: one bucket, orders and mail jobs interleaved, more than a run reads
    setUp({ shards: 1, buckets: 1 })
    const jobs = Array.from({ length: 700 }, (_, i) =>
      job({ id: `m-${i}`, queue: i % 2 ? 'mail' : 'orders', due: { delayMs: HOUR + i } }),
    )
    await t.store.enqueueMany(jobs)
    // act: run by run, as a client following the cursor does
    const first = await promoter.promoteDue({ beforeMs: Date.now() + 2 * HOUR, queue: 'orders', maxRuns: 1 })
    const rest = await promoter.promoteDue({ beforeMs: Date.now() + 2 * HOUR, queue: 'orders', cursor: first.cursor })
    // assess: the first run passed over 250 mail jobs, the cursor says so; every orders job moved, no mail job
    expect(first).toEqual({ promoted: 250, cursor: expect.stringMatching(/^0\.0\.\d{13}\.m-499$/) })
    expect(rest).toEqual({ promoted: 100, cursor: null })
    const orders = jobs.filter((j) => j.queue === 'orders').map((j) => j.id)
    expect(await claimable()).toEqual(orders.sort())
  })

  it('stops a queue-filtered run at its byte bound also when every bucket holds one job', async () => {
    // prepare: 40 orders jobs of 100 KB, one slice of buckets (mostly one job each): 4 MB of records to read
    setUp({ shards: 1, buckets: 256 })
    const big = JSON.stringify({ pad: 'x'.repeat(100_000) })
    const jobs = Array.from({ length: 40 }, (_, i) =>
      job({ id: `big-${i}`, payloadJson: big, due: { delayMs: HOUR + i } }),
    )
    await t.store.enqueueMany(jobs)
    // act: one run, then the rest from its cursor
    const first = await promoter.promoteDue({ beforeMs: Date.now() + 2 * HOUR, queue: 'orders', maxRuns: 1 })
    const rest = await promoter.promoteDue({ beforeMs: Date.now() + 2 * HOUR, queue: 'orders', cursor: first.cursor })
    // assess: the run read about BYTES_PER_RUN of records (one record past it at most), then answered a cursor
    expect(first.promoted).toBeLessThanOrEqual(Math.ceil(BYTES_PER_RUN / big.length) + 1)
    expect(first.cursor).not.toBeNull()
    expect(first.promoted + rest.promoted).toBe(40)
    expect(await claimable()).toEqual(jobs.map((j) => j.id).sort())
  })

  it('goes on after the job where a run stopped, also when jobs it passed over have left the bucket since', async () => {
    // prepare: one bucket, orders and mail jobs interleaved, more than a run reads
    setUp({ shards: 1, buckets: 1 })
    const jobs = Array.from({ length: 700 }, (_, i) =>
      job({ id: `m-${i}`, queue: i % 2 ? 'mail' : 'orders', due: { delayMs: HOUR + i } }),
    )
    await t.store.enqueueMany(jobs)
    const first = await promoter.promoteDue({ beforeMs: Date.now() + 2 * HOUR, queue: 'orders', maxRuns: 1 })
    expect(first.promoted).toBe(JOBS_PER_RUN / 2)
    // act: the mail jobs the first run passed over leave (cancelled; as well sent, or due meanwhile), then the rest
    for (const j of jobs.slice(0, JOBS_PER_RUN).filter((j) => j.queue === 'mail')) await t.store.cancel(j.id)
    const rest = await promoter.promoteDue({ beforeMs: Date.now() + 2 * HOUR, queue: 'orders', cursor: first.cursor })
    // assess: every orders job moved, none skipped
    expect(rest).toEqual({ promoted: 100, cursor: null })
    const orders = jobs.filter((j) => j.queue === 'orders').map((j) => j.id)
    expect(await claimable()).toEqual(orders.sort())
  })

  it('refuses a cursor it did not write, naming the field', async () => {
    setUp({ shards: 1, buckets: 4 })
    await expect(promoter.promoteDue({ beforeMs: Date.now(), cursor: '9.0.0' })).rejects.toBeInstanceOf(ValidationError)
    await expect(promoter.promoteDue({ beforeMs: Date.now(), cursor: 'x' })).rejects.toThrow(/cursor/)
  })
})
