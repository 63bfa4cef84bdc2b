// What a write does to a job stored under its id, by onConflict (src/store/upsert-modes.ts, lua/enqueue.lua): reject,
// replace, extend, debounce; and debounce over a long series of writes, in Redis's time without waiting for it: the
// job is moved back a second at a time (test/support/age-job.ts) where the series would wait a second.
import { afterAll, describe, expect, it } from 'vitest'
import { JobExistsError } from '../../src/errors'
import { Leases } from '../../src/scan/claims/leases'
import type { NewJob } from '../../src/store/job-store'
import { ageJob } from '../support/age-job'
import { job, testStore } from '../support/engine'

const t = testStore({ buckets: 16 })
afterAll(() => t.close())
const leases = new Leases(t.redis, { leaseMs: 60_000, maxAttempts: 3, backoffBaseMs: 1, backoffMaxMs: 1 })

/** What a scanner would send now of job `id`'s shard: claimed and acked (gone), as SQS took it. */
async function dispatchDue(id: string) {
  const shard = t.keys.locate(id).shard
  const { jobs } = await leases.claim(shard, await leases.seedHints(shard, 16), 10)
  if (jobs.length) await leases.ack(shard, jobs)
  return jobs.filter((j) => j.id === id)
}

describe('onConflict on a stored job', () => {
  const first = (id: string): NewJob => job({ id, payloadJson: '"v0"', due: { delayMs: 60_000 } })
  const second = (id: string, set: Partial<NewJob>): NewJob =>
    job({ id, payloadJson: '"v1"', due: { delayMs: 120_000 }, ...set })

  it('reject refuses the write; replace takes its payload and due time', async () => {
    // prepare
    await t.store.enqueue(first('m-reject'))
    await t.store.enqueue(first('m-replace'))
    // act
    const refused = await t.store.enqueue(second('m-reject', { onConflict: 'reject' })).catch((e: unknown) => e)
    const replaced = await t.store.enqueue(second('m-replace', { onConflict: 'replace' }))
    // assess
    expect(refused).toBeInstanceOf(JobExistsError)
    expect(replaced).toMatchObject({ status: 'replaced', version: 1 })
    expect((await t.store.get('m-replace'))?.payload).toBe('v1')
    expect((await t.store.get('m-reject'))?.payload).toBe('v0')
  })

  it('extend moves the due time and keeps the payload', async () => {
    // prepare
    const created = await t.store.enqueue(first('m-extend'))
    // act
    const extended = await t.store.enqueue(second('m-extend', { onConflict: 'extend' }))
    // assess
    expect(extended).toMatchObject({ status: 'replaced', version: 1 })
    expect(extended.dueMs - created.dueMs).toBeGreaterThanOrEqual(60_000)
    expect(await t.store.get('m-extend')).toMatchObject({ payload: 'v0' })
  })

  it('debounce takes the payload and moves the due time, never past the first write + maxWaitMs', async () => {
    // prepare
    const created = await t.store.enqueue(first('m-debounce'))
    // act
    const moved = await t.store.enqueue(second('m-debounce', { onConflict: 'debounce', maxWaitMs: 90_000 }))
    // assess: 120 s from now is past the first write + 90 s
    expect(moved.dueMs).toBe(created.createdAtMs + 90_000)
    expect(await t.store.get('m-debounce')).toMatchObject({ payload: 'v1' })
  })

  it('creates a new incarnation of an id whose job SQS took, in every mode', async () => {
    for (const onConflict of ['replace', 'extend', 'debounce'] as const) {
      // prepare
      const id = `m-gone-${onConflict}`
      await t.store.enqueue(job({ id, payloadJson: '"v0"' }))
      expect(await dispatchDue(id)).toHaveLength(1)
      // act
      const again = await t.store.enqueue(
        job({ id, payloadJson: '"v1"', due: { delayMs: 5_000 }, onConflict, maxWaitMs: 30_000 }),
      )
      // assess
      expect(again).toMatchObject({ status: 'created', version: 0 })
      expect(await t.store.get(id)).toMatchObject({ payload: 'v1' })
      await t.store.cancel(id)
    }
  })
})

describe('a debounced job over a long series of writes', () => {
  it('fires 30 s after the first of 100 writes 1 s apart (period 5 s), each 30 s after, and 5 s after the last', async () => {
    // prepare
    const id = 'debounced-digest'
    const fired: { at: number; payload: string; createdAtMs: number }[] = []
    // act: one virtual second a step: time passes (the job is moved back), a scanner sends what is due, a write comes
    for (let at = 0; at <= 110; at++) {
      if (at > 0) await ageJob(t.redis, t.keys, id, 1_000)
      for (const sent of await dispatchDue(id))
        fired.push({ at, payload: sent.payloadJson, createdAtMs: sent.createdAtMs })
      if (at < 100) {
        const write = job({ id, payloadJson: `${at}`, due: { delayMs: 5_000 } })
        await t.store.enqueue({ ...write, onConflict: 'debounce', maxWaitMs: 30_000 })
      }
    }
    // assess: each fire sends the last write before it; each later write starts a new incarnation
    expect(fired.map((f) => [f.at, f.payload])).toEqual([
      [30, '29'],
      [60, '59'],
      [90, '89'],
      [104, '99'],
    ])
    expect(new Set(fired.map((f) => f.createdAtMs)).size).toBe(4)
    expect(await t.store.get(id)).toBeNull()
  })
})
