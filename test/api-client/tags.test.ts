// The api-client's tag calls (listByTag pages GET /jobs?tag=; cancelByTag calls DELETE /jobs?tag= until the API
// answers done, adding up what each call cancelled; deleteSchedulesByTag likewise with DELETE /schedules?tag=), and a
// debounced write answered as replaced.
import { describe, expect, it } from 'vitest'
import { DelayQueueApiClient } from '../../src/api-client'
import { servedApi } from '../api/api-helpers'

const served = servedApi()
const options = () => ({
  url: served.api.url,
  region: 'eu-west-1',
  credentials: { accessKeyId: 'AKIDLOCALTEST', secretAccessKey: 'local-secret' },
})
const client = () => new DelayQueueApiClient(options())

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

  it('deletes every recurring schedule with a tag, and leaves the others', async () => {
    // prepare
    const c = client()
    const every = { queue: 'orders', payload: 1, everyMs: 3_600_000 }
    for (const id of ['ac-s-1', 'ac-s-2']) await c.putSchedule(id, { ...every, tags: ['team:1'] })
    await c.putSchedule('ac-s-other', { ...every, tags: ['team:2'] })
    // act
    const result = await c.deleteSchedulesByTag('team:1')
    // assess
    expect(result).toEqual({ deleted: 2, done: true })
    expect((await c.listSchedules({ tag: 'team:1' })).schedules).toEqual([])
    expect(await c.getSchedule('ac-s-1')).toBeNull()
    expect((await c.getSchedule('ac-s-other'))?.tags).toEqual(['team:2'])
  })

  it('calls DELETE /schedules?tag= again while it answers done: false, adding up what each call deleted', async () => {
    // prepare: the first answer says its budget ran out, and one more schedule got the tag meanwhile
    const every = { queue: 'orders', payload: 1, everyMs: 3_600_000 }
    const c = client()
    for (const id of ['ac-r-1', 'ac-r-2']) await c.putSchedule(id, { ...every, tags: ['team:3'] })
    let calls = 0
    const cut: typeof fetch = async (url, init) => {
      const res = await fetch(url, init)
      if (init?.method !== 'DELETE' || ++calls > 1) return res
      await c.putSchedule('ac-r-3', { ...every, tags: ['team:3'] })
      const answer = (await res.json()) as Record<string, unknown>
      return new Response(JSON.stringify({ ...answer, done: false }), { status: 200 })
    }
    const cutClient = new DelayQueueApiClient({ ...options(), fetch: cut })
    // act
    const result = await cutClient.deleteSchedulesByTag('team:3')
    // assess
    expect(result).toEqual({ deleted: 3, done: true })
    expect(calls).toBe(2)
    expect(await c.getSchedule('ac-r-3')).toBeNull()
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
