import { afterAll, describe, expect, it } from 'vitest'
import { JobExistsError, JobNotFoundError } from '../../src/errors'
import { job, testStore } from '../support/engine'

const t = testStore()
afterAll(() => t.close())

describe('job store', () => {
  it('stores a job and shows it by id with its due time on Redis clock', async () => {
    // prepare
    const before = Date.now()
    // act
    const r = await t.store.enqueue(job({ id: 'order-1', payloadJson: '{"orderId":1}', due: { delayMs: 60_000 } }))
    const view = await t.store.get('order-1')
    // assess
    expect(r.status).toBe('created')
    expect(view).toMatchObject({ id: 'order-1', queue: 'orders', status: 'scheduled', payload: { orderId: 1 } })
    expect(Date.parse(view!.runAt) - before).toBeGreaterThanOrEqual(59_000)
    expect(Date.parse(view!.runAt)).toBe(r.dueMs)
  })

  it('refuses a second insert with the same id, naming the existing job alike whatever payload it sent', async () => {
    await t.store.enqueue(job({ id: 'dup-1', payloadJson: '"first"' }))
    const other = await t.store.enqueue(job({ id: 'dup-1', payloadJson: '"second"' })).catch((e) => e)
    const same = await t.store.enqueue(job({ id: 'dup-1', payloadJson: '"first"' })).catch((e) => e)
    expect(other).toBeInstanceOf(JobExistsError)
    expect(other.existing).toEqual({
      id: 'dup-1',
      queue: 'orders',
      status: 'scheduled',
      runAt: expect.any(String),
      createdAt: expect.any(String),
    })
    expect(same.existing).toEqual(other.existing)
  })

  it('upsert replaces payload and due time, keeps createdAt and bumps the version', async () => {
    const first = await t.store.upsert(job({ id: 'up-1', due: { delayMs: 1_000_000 } }))
    const second = await t.store.upsert(job({ id: 'up-1', payloadJson: '{"v":2}', due: { delayMs: 5_000 } }))
    expect(first.status).toBe('created')
    expect(second).toMatchObject({ status: 'replaced', version: 1, createdAtMs: first.createdAtMs })
    expect(second.dueMs).toBeLessThan(first.dueMs)
    expect((await t.store.get('up-1'))!.payload).toEqual({ v: 2 })
  })

  it('cancel removes a scheduled job; a second cancel is not found', async () => {
    await t.store.enqueue(job({ id: 'c-1', due: { delayMs: 100_000 } }))
    await t.store.cancel('c-1')
    expect(await t.store.get('c-1')).toBeNull()
    await expect(t.store.cancel('c-1')).rejects.toBeInstanceOf(JobNotFoundError)
  })

  it('keeps per-queue counts', async () => {
    const s = testStore()
    await s.store.enqueueMany([job({ queue: 'a' }), job({ queue: 'a' }), job({ queue: 'b' })])
    const stats = await s.store.stats()
    expect(stats.queues).toMatchObject({ a: { pending: 2, dead: 0 }, b: { pending: 1 } })
    await s.close()
  })

  it('enqueueMany answers each job on its own, in input order', async () => {
    const results = await t.store.enqueueMany([job({ id: 'm-1' }), job({ id: 'm-1' }), job({ id: 'm-2' })])
    expect(results[0]).toMatchObject({ id: 'm-1', status: 'created' })
    expect(results[1]).toBeInstanceOf(JobExistsError)
    expect(results[2]).toMatchObject({ id: 'm-2', status: 'created' })
  })
})
