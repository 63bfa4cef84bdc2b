// The dashboard and the recurring schedules' tags: the schedule table shows each schedule's tags; the tag filter lists
// the schedules with the tag under the jobs, and "Delete all tagged schedules" asks first with the count of schedules
// that hold the tag: dismissed, nothing changes; accepted, every schedule with the tag is deleted (its pending
// occurrence with it) and the others stay. In headless Chromium, over the suite's redis-server.
import type { Browser } from 'playwright-core'
import { describe, expect, it, vi } from 'vitest'
import type { DelayQueue } from '../../src/direct/delay-queue'
import type { Dashboard } from '../../src/ops/dashboard/server'
import { HAVE_CHROMIUM, requireChromium } from '../support/chromium'
import { dashboardWorld } from '../support/dashboard-world'

requireChromium("the dashboard's tagged schedules browser tests")

let dashboard: Dashboard
let queue: DelayQueue
let browser: Browser | undefined

dashboardWorld('dashtagsched', (w) => ({ dashboard, queue, browser } = w))

const every = { queue: 'orders', payload: {}, everyMs: 3_600_000 }

describe.skipIf(!HAVE_CHROMIUM)('tagged recurring schedules in a browser', () => {
  it('shows schedule tags, lists the schedules of a tag and deletes them all once the count shown is confirmed', async () => {
    // prepare: two schedules of customer 5, one of customer 6, and a job of customer 5
    await queue.putSchedule('c5-digest', { ...every, tags: ['customer:5', 'digest'] })
    await queue.putSchedule('c5-nudge', { ...every, tags: ['customer:5'] })
    await queue.putSchedule('c6-digest', { ...every, tags: ['customer:6'] })
    await queue.schedule({ id: 'c5-close', queue: 'orders', payload: {}, delayMs: 3_600_000, tags: ['customer:5'] })
    const page = await browser!.newPage({ viewport: { width: 1400, height: 1000 } })
    const asked: string[] = []
    let answer = false
    page.on('dialog', (d) => {
      asked.push(d.message())
      void (answer ? d.accept() : d.dismiss())
    })
    const tagged = page.locator('[data-testid="tagged-schedules"] tbody tr')
    try {
      await page.goto(dashboard.url)
      // assess: the schedule table shows each schedule's tags
      const tagsOf = (id: string) =>
        page.locator(`[data-testid="schedules"] tr[data-schedule-id="${id}"] [data-field="tags"]`)
      await vi.waitFor(async () => expect(await tagsOf('c5-digest').textContent()).toBe('customer:5, digest'), {
        timeout: 10_000,
        interval: 100,
      })
      expect(await tagsOf('c6-digest').textContent()).toBe('customer:6')
      // act: filter by the tag
      await page.getByTestId('pending-tag').fill('customer:5')
      await page.getByTestId('pending-tag').press('Enter')
      // assess: its schedules listed under its jobs
      await vi.waitFor(async () => expect(await tagged.count()).toBe(2), { timeout: 10_000, interval: 100 })
      expect(await tagged.first().getAttribute('data-schedule-id')).toBe('c5-digest')
      // act: delete all, dismissed
      await page.getByRole('button', { name: 'Delete all tagged schedules' }).click()
      await vi.waitFor(() => expect(asked).toHaveLength(1), { timeout: 5_000, interval: 50 })
      // assess: the count shown, nothing deleted
      expect(asked[0]).toContain('Delete all 2 recurring schedules tagged "customer:5"')
      expect(await queue.getSchedule('c5-digest')).not.toBeNull()
      // act: delete all, accepted
      answer = true
      await page.getByRole('button', { name: 'Delete all tagged schedules' }).click()
      // assess
      await vi.waitFor(
        async () =>
          expect((await page.getByTestId('tag-schedules-outcome').textContent())?.trim()).toBe('2 schedules deleted'),
        { timeout: 10_000, interval: 100 },
      )
      await vi.waitFor(async () => expect(await tagged.count()).toBe(0), { timeout: 10_000, interval: 100 })
      expect(await queue.getSchedule('c5-digest')).toBeNull()
      expect(await queue.getSchedule('c5-nudge')).toBeNull()
      expect((await queue.listPending({ limit: 100 })).jobs.filter((j) => j.id.startsWith('c5-'))).toEqual([
        expect.objectContaining({ id: 'c5-close' }),
      ])
      expect(await queue.getSchedule('c6-digest')).not.toBeNull()
    } finally {
      await page.close()
    }
  }, 40_000)
})
