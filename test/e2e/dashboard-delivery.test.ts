// The dashboard's look-up of a job of an HTTP target queue, in headless Chromium: once the forwarder has called the
// job's URL (a receiver on loopback), the panel shows what the call got (outcome, status, calls made, the answer's
// first bytes), the answer's text as text even when it is markup. Screenshot to test/artifacts/.
import { mkdirSync } from 'node:fs'
import { resolve } from 'node:path'
import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startDashboard, type Dashboard } from '../../src/ops/dashboard/server'
import { DelayQueue } from '../../src/direct/delay-queue'
import { HAVE_CHROMIUM, launchChromium, requireChromium } from '../support/chromium'
import { eventually } from '../support/eventually'
import { startKit, TARGET, type Kit } from '../http-target/forwarder-kit'
import { MARKUP } from '../http-target/receiver'

requireChromium("the dashboard's delivery view")
const ARTIFACTS = resolve(__dirname, '../artifacts')
let kit: Kit
let dashboard: Dashboard
let browser: Browser | undefined

beforeAll(async () => {
  kit = await startKit()
  kit.poll(1)
  kit.scan()
  dashboard = await startDashboard(kit.engine)
  if (HAVE_CHROMIUM) browser = await launchChromium()
}, 60_000)

afterAll(async () => {
  await browser?.close()
  await dashboard?.close()
  await kit?.close()
})

/** Schedules an HTTP job due now and waits until the forwarder has kept what its call got. */
async function delivered(id: string, path: string) {
  await new DelayQueue(kit.engine).schedule({ id, queue: TARGET, payload: { url: `${kit.receiver.url}${path}` } })
  await eventually(async () => (await kit.engine.store.get(id))?.delivery?.outcome !== undefined, 20_000)
}

/** Looks `id` up on a fresh page and hands the page over; closed whether the test passes or not. */
async function lookedUp(id: string, use: (page: Page) => Promise<void>) {
  const page = await browser!.newPage({ viewport: { width: 1200, height: 900 } })
  try {
    await page.goto(`${dashboard.url}/#job=${encodeURIComponent(id)}`)
    await page.locator('[data-testid="job"] [data-field="status"]').waitFor({ timeout: 5_000 })
    await use(page)
  } finally {
    await page.close()
  }
}

describe.skipIf(!HAVE_CHROMIUM)("dashboard look-up of an HTTP target queue's job", () => {
  it('shows what the call got, and the answer as text, never as markup', async () => {
    // prepare: a call answered 422 with markup in its body (dead-lettered after one call)
    await delivered('hook-markup', '/markup')
    // act
    await lookedUp('hook-markup', async (page) => {
      const field = (name: string) => page.locator(`[data-testid="job"] [data-field="${name}"]`)
      // assess: outcome, status, calls made and the excerpt, the excerpt's text exactly as the receiver sent it
      expect(await field('delivery-outcome').textContent({ timeout: 5_000 })).toContain('dead-lettered')
      expect(await field('delivery-status').textContent({ timeout: 5_000 })).toContain('HTTP 422')
      expect((await field('delivery-attempts').textContent({ timeout: 5_000 }))?.trim()).toBe('1')
      expect(await field('delivery-excerpt').textContent({ timeout: 5_000 })).toBe(MARKUP)
      expect(
        await page.locator('[data-testid="job"] img, [data-testid="job"] b, [data-testid="job"] script').count(),
      ).toBe(0)
      expect(await page.evaluate(() => (globalThis as { __xss?: number }).__xss)).toBeUndefined()
      mkdirSync(ARTIFACTS, { recursive: true })
      await page.getByTestId('job').screenshot({ path: resolve(ARTIFACTS, 'dashboard-http-delivery.png') })
    })
  }, 40_000)

  it('shows a delivered call with its 2xx status', async () => {
    // prepare
    await delivered('hook-ok', '/ok')
    // act
    await lookedUp('hook-ok', async (page) => {
      const field = (name: string) => page.locator(`[data-testid="job"] [data-field="${name}"]`)
      // assess
      expect(await field('delivery-outcome').textContent({ timeout: 5_000 })).toContain('delivered')
      expect(await field('delivery-status').textContent({ timeout: 5_000 })).toContain('HTTP 200')
      expect(await field('delivery-excerpt').textContent({ timeout: 5_000 })).toBe('ok hook-ok')
    })
  }, 40_000)
})
