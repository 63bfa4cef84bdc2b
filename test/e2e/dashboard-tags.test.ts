// The dashboard's pending list filtered by a tag, and its "Cancel all tagged" behind a confirmation that shows how
// many jobs hold the tag: dismissed, nothing changes; accepted, every job with the tag is cancelled and the others
// stay. "Run all tagged now" likewise makes them due now. In headless Chromium, over the suite's redis-server.
import type { Browser } from 'playwright-core'
import { describe, expect, it, vi } from 'vitest'
import type { DelayQueue } from '../../src/direct/delay-queue'
import type { Dashboard } from '../../src/ops/dashboard/server'
import { HAVE_CHROMIUM, requireChromium } from '../support/chromium'
import { dashboardWorld } from '../support/dashboard-world'

requireChromium("the dashboard tag filter's browser tests")

let dashboard: Dashboard
let queue: DelayQueue
let browser: Browser | undefined

dashboardWorld('dashtags', (w) => ({ dashboard, queue, browser } = w))

describe.skipIf(!HAVE_CHROMIUM)('the pending list by tag in a browser', () => {
  it('lists the jobs of a tag and cancels them all once the count shown is confirmed', async () => {
    // prepare: three jobs of order 9, one of order 10
    for (const id of ['o9-remind', 'o9-close', 'o9-follow'])
      await queue.schedule({ id, queue: 'orders', payload: {}, delayMs: 3_600_000, tags: ['order:9'] })
    await queue.schedule({ id: 'o10-close', queue: 'orders', payload: {}, delayMs: 3_600_000, tags: ['order:10'] })
    const page = await browser!.newPage({ viewport: { width: 1200, height: 900 } })
    const asked: string[] = []
    let answer = false
    page.on('dialog', (d) => {
      asked.push(d.message())
      void (answer ? d.accept() : d.dismiss())
    })
    const rows = page.locator('[data-testid="pending"] tbody tr')
    try {
      await page.goto(dashboard.url)
      // act: filter
      await page.getByTestId('pending-tag').fill('order:9')
      await page.getByTestId('pending-tag').press('Enter')
      // assess
      await vi.waitFor(async () => expect(await rows.count()).toBe(3), { timeout: 10_000, interval: 100 })
      expect(await rows.first().getAttribute('data-pending-id')).toBe('o9-close')
      // act: cancel, dismissed
      await page.getByRole('button', { name: 'Cancel all tagged' }).click()
      await vi.waitFor(() => expect(asked).toHaveLength(1), { timeout: 5_000, interval: 50 })
      // assess: the count shown, nothing cancelled
      expect(asked[0]).toContain('Cancel all 3 jobs tagged "order:9"')
      expect(await queue.get('o9-close')).not.toBeNull()
      // act: cancel, accepted
      answer = true
      await page.getByRole('button', { name: 'Cancel all tagged' }).click()
      // assess
      await vi.waitFor(
        async () => expect((await page.getByTestId('tag-outcome').textContent())?.trim()).toBe('3 cancelled'),
        { timeout: 10_000, interval: 100 },
      )
      await vi.waitFor(async () => expect(await rows.count()).toBe(0), { timeout: 10_000, interval: 100 })
      for (const id of ['o9-remind', 'o9-close', 'o9-follow']) expect(await queue.get(id)).toBeNull()
      expect(await queue.get('o10-close')).not.toBeNull()
    } finally {
      await page.close()
    }
  }, 40_000)

  it('runs the jobs of a tag now once the count shown is confirmed, and leaves the others', async () => {
    // prepare: two jobs of order 11 due in an hour, one of order 12
    for (const id of ['o11-remind', 'o11-close'])
      await queue.schedule({ id, queue: 'orders', payload: {}, delayMs: 3_600_000, tags: ['order:11'] })
    await queue.schedule({ id: 'o12-close', queue: 'orders', payload: {}, delayMs: 3_600_000, tags: ['order:12'] })
    const page = await browser!.newPage({ viewport: { width: 1200, height: 900 } })
    const asked: string[] = []
    page.on('dialog', (d) => {
      asked.push(d.message())
      void d.accept()
    })
    try {
      await page.goto(dashboard.url)
      await page.getByTestId('pending-tag').fill('order:11')
      await page.getByTestId('pending-tag').press('Enter')
      // act
      await page.getByRole('button', { name: 'Run all tagged now' }).click()
      // assess
      await vi.waitFor(
        async () => expect((await page.getByTestId('tag-outcome').textContent())?.trim()).toBe('2 due now'),
        { timeout: 10_000, interval: 100 },
      )
      expect(asked[0]).toContain('Run all 2 jobs tagged "order:11" now?')
      for (const id of ['o11-remind', 'o11-close'])
        expect(Date.parse((await queue.get(id))!.runAt)).toBeLessThanOrEqual(Date.now())
      expect(Date.parse((await queue.get('o12-close'))!.runAt)).toBeGreaterThan(Date.now() + 3_000_000)
    } finally {
      await page.close()
    }
  }, 40_000)
})
