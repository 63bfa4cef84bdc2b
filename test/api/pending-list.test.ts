// GET /jobs: pending jobs page by page, in due-time order, through the API handler.
import { afterAll, describe, expect, it } from 'vitest'
import { bodyOf, request, testApi } from './api-helpers'

const api = testApi()
const cursorOf = (text: string) => Buffer.from(text).toString('base64url')
afterAll(() => api.close())

describe('GET /jobs', () => {
  it('lists pending jobs of one queue in due order, a page at a time, without payloads', async () => {
    // prepare: 5 jobs for orders (due in reverse order of creation) and one for another queue
    for (let i = 0; i < 5; i++) {
      const body = { id: `list-${i}`, queue: 'orders', payload: { i }, delayMs: 600_000 - i * 1_000 }
      expect((await api.call(request('POST', '/jobs', { body }))).statusCode).toBe(201)
    }
    await api.call(
      request('POST', '/jobs', { body: { id: 'list-fifo', queue: 'events.fifo', payload: 1, groupId: 'g' } }),
    )
    // act
    const first = await api.call(request('GET', '/jobs', { query: { queue: 'orders', limit: '3' } }))
    const page1 = bodyOf(first)
    const page2 = bodyOf(await api.call(request('GET', '/jobs', { query: { queue: 'orders', cursor: page1.cursor } })))
    // assess
    expect(first.statusCode).toBe(200)
    expect(page1.jobs.map((j: { id: string }) => j.id)).toEqual(['list-4', 'list-3', 'list-2'])
    expect(page1.jobs[0]).toEqual({
      id: 'list-4',
      queue: 'orders',
      runAt: expect.any(String),
      createdAt: expect.any(String),
      payloadBytes: 7,
    })
    expect(page2).toEqual({
      jobs: [expect.objectContaining({ id: 'list-1' }), expect.objectContaining({ id: 'list-0' })],
      cursor: null,
    })
  })

  it('answers 400 naming the field for a bad limit, an unknown queue or a forged cursor', async () => {
    for (const [query, path] of [
      [{ limit: '0' }, 'limit'],
      [{ limit: 'x' }, 'limit'],
      [{ queue: 'nope' }, 'queue'],
      [{ cursor: 'bm8tY29sb24' }, 'cursor'],
      // tampered: a walk name that no page gives, an id no job can have, a due time past any date, not base64url
      [{ cursor: cursorOf('w!!:1795000000000:order-1') }, 'cursor'],
      [{ cursor: cursorOf('wAAAAAAAAAAA:1795000000000:order 1') }, 'cursor'],
      [{ cursor: cursorOf('wAAAAAAAAAAA:99999999999999999:order-1') }, 'cursor'],
      [{ cursor: `${cursorOf('wAAAAAAAAAAA:1795000000000:order-1')}=` }, 'cursor'],
    ] as const) {
      const res = await api.call(request('GET', '/jobs', { query }))
      expect(res.statusCode).toBe(400)
      expect(bodyOf(res).error.details[0].path).toBe(path)
    }
  })
})
