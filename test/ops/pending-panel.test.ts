// The dashboard's pending-jobs panel shows the page of the reader's last click: an earlier click's answer that comes
// later (a deep page is slower than the first) is dropped, not shown under the buttons of another page.
import { sleep } from '../../devkit/sleep'
import { describe, expect, it } from 'vitest'
import type { PendingPage } from '../../src/ops/dashboard/browser/api'
import { PendingPanel } from '../../src/ops/dashboard/browser/pending'

/** Page loads the test answers by hand, by cursor. */
function pagesByHand() {
  const waiting = new Map<string, (page: PendingPage) => void>()
  const fetchPage = (_queue: string, cursor: string) =>
    new Promise<PendingPage>((resolve) => waiting.set(cursor, resolve))
  const answer = async (cursor: string, page: PendingPage) => {
    waiting.get(cursor)!(page)
    waiting.delete(cursor)
    await sleep(0)
  }
  return { fetchPage, answer }
}

const pageOf = (id: string, cursor: string | null): PendingPage => ({
  jobs: [
    { id, queue: 'orders', runAt: '2026-11-27T09:00:00.000Z', createdAt: '2026-11-26T01:00:00.000Z', payloadBytes: 2 },
  ],
  cursor,
})

describe('the pending panel', () => {
  it('shows the page of the last click when an earlier click answers after it', async () => {
    // prepare: the first page shown, with a cursor to the second
    const { fetchPage, answer } = pagesByHand()
    const panel = new PendingPanel(
      () => undefined,
      () => undefined,
      fetchPage,
    )
    void panel.refresh()
    await answer('', pageOf('first-job', 'c1'))
    // act: Next (slow), then Previous before Next answers; Previous answers first
    void panel.next()
    void panel.previous()
    await answer('', pageOf('first-job', 'c1'))
    await answer('c1', pageOf('second-job', 'c2'))
    // assess: the first page, as Previous asked, under the first page's buttons
    expect(panel.shown.page?.jobs.map((j) => j.id)).toEqual(['first-job'])
    expect(panel.shown.trail).toEqual([''])
  })
})
