// The api-client's tag calls (listByTag pages GET /jobs?tag=; cancelByTag calls DELETE /jobs?tag= until the API
// answers done, adding up what each call cancelled), and a debounced write answered as replaced.
import { describe, expect, it } from 'vitest'
import { DelayQueueApiClient } from '../../src/api-client'
import { servedApi } from '../api/api-helpers'

const served = servedApi()
const client = () =>
  new DelayQueueApiClient({
    url: served.api.url,
    region: 'eu-west-1',
    credentials: { accessKeyId: 'AKIDLOCALTEST', secretAccessKey: 'local-secret' },
  })

describe('api-client tags', () => {
  it('schedules tagged jobs, lists them by tag, and cancels them all', async () => {
    // prepare
    const c = client()
    for (let i = 0; i < 3; i++) {
      const job = await c.schedule({ id: `ac-tag-${i}`, queue: 'orders', payload: i, delayMs: 600_000, tags: ['u:1'] })
      expect(job.tags).toEqual(['u:1'])
    }
    // act
    const first = await c.listByTag('u:1', { limit: 2 })
    const second = await c.listByTag('u:1', { cursor: first.cursor })
    const result = await c.cancelByTag('u:1')
    // assess
    expect([...first.jobs, ...second.jobs].map((j) => j.id)).toEqual(['ac-tag-0', 'ac-tag-1', 'ac-tag-2'])
    expect(result).toEqual({ cancelled: 3, inFlight: 0, recurring: 0, done: true })
    expect((await c.listByTag('u:1')).jobs).toEqual([])
  })

  it('says when a debounced write went to the job stored under its id', async () => {
    // prepare
    const c = client()
    const write = { id: 'ac-digest', queue: 'orders', payload: 1, delayMs: 60_000 }
    // act
    const first = await c.schedule({ ...write, onConflict: 'debounce', maxWaitMs: 90_000 })
    const second = await c.schedule({ ...write, payload: 2, onConflict: 'debounce', maxWaitMs: 90_000 })
    // assess
    expect(first.replaced).toBeUndefined()
    expect(second.replaced).toBe(true)
    expect((await c.get('ac-digest'))?.payload).toBe(2)
  })
})
