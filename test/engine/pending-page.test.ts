// Browsing pending jobs: pages in due-time order over every shard and bucket, one queue or all, with a cursor.
import { describe, expect, it } from 'vitest'
import { DelayQueue } from '../../src/direct/delay-queue'
import { loadConfig } from '../../src/config'
import { ValidationError } from '../../src/errors'
import type { PendingJob } from '../../src/store/pending-page'
import { testStore } from '../support/engine'

async function allPages(list: (cursor: string | null) => Promise<{ jobs: PendingJob[]; cursor: string | null }>) {
  const pages: PendingJob[][] = []
  let cursor: string | null = null
  do {
    const page = await list(cursor)
    pages.push(page.jobs)
    cursor = page.cursor
  } while (cursor && pages.length < 100)
  return pages
}

describe('pending jobs, page by page', () => {
  for (const layout of [
    { shards: 3, buckets: 8 },
    { shards: 1, buckets: 1 },
  ])
    it(`pages through every job in due order, ties in one millisecond included (${layout.shards} shards of ${layout.buckets} buckets)`, async () => {
      // prepare: 60 jobs at random times and 25 due in the same millisecond (in one bucket: pages cut through them)
      const t = testStore(layout)
      const base = Date.now() + 3_600_000
      const jobs = [
        ...Array.from({ length: 60 }, (_, i) => ({ id: `r-${i}`, atMs: base + Math.floor(Math.random() * 100_000) })),
        ...Array.from({ length: 25 }, (_, i) => ({ id: `tie-${String(i).padStart(2, '0')}`, atMs: base + 50_000 })),
      ]
      for (const j of jobs) {
        const queue = j.id.startsWith('r-') && Number(j.id.slice(2)) % 3 === 0 ? 'emails' : 'orders'
        await t.store.enqueue({ id: j.id, queue, payloadJson: '{"x":1}', schedule: { atMs: j.atMs } })
      }
      // act: pages of 7, for all queues and for one
      const all = await allPages((cursor) => t.store.listPending({ limit: 7, cursor }))
      const emails = await allPages((cursor) => t.store.listPending({ queue: 'emails', limit: 7, cursor }))
      // assess: every job once, in (due time, id) order; pages never longer than asked
      const expected = [...jobs].sort((a, b) => a.atMs - b.atMs || (a.id < b.id ? -1 : 1)).map((j) => j.id)
      expect(all.flat().map((j) => j.id)).toEqual(expected)
      expect(Math.max(...all.map((p) => p.length))).toBe(7)
      expect(all.flat()[0]).toEqual({
        id: expected[0],
        queue: expect.any(String),
        runAt: new Date(jobs.find((j) => j.id === expected[0])!.atMs).toISOString(),
        createdAt: expect.any(String),
        payloadBytes: 7,
      })
      const emailIds = expected.filter((id) => id.startsWith('r-') && Number(id.slice(2)) % 3 === 0)
      expect(emails.flat().map((j) => j.id)).toEqual(emailIds)
      expect(emails.flat().every((j) => j.queue === 'emails')).toBe(true)
      await t.close()
    })

  it('refuses a bad limit, an unknown queue and a forged cursor with the field named, reading nothing', async () => {
    // prepare
    const t = testStore()
    const config = loadConfig({ REDIS_URL: 'redis://unused', QUEUES: 'orders=http://q/orders' })
    const queue = new DelayQueue({ config, store: t.store })
    // act / assess
    for (const [options, path] of [
      [{ limit: 0 }, 'limit'],
      [{ limit: 101 }, 'limit'],
      [{ queue: 'nope' }, 'queue'],
      [{ cursor: '!!' }, 'cursor'],
      [{ cursor: Buffer.from('no-colon').toString('base64url') }, 'cursor'],
    ] as const) {
      const e = await queue.listPending(options).catch((err: unknown) => err)
      expect(e).toBeInstanceOf(ValidationError)
      expect((e as ValidationError).details[0]!.path).toBe(path)
    }
    await t.close()
  })
})
