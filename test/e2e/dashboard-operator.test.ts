// The dashboard as an operator uses it (what Bull Board users expect), in headless Chromium over the suite's
// redis-server and SQS endpoint: actions on each pending row (run now, reschedule, cancel), relative times beside the
// absolute ones, a URL per job (#job=<id>) that opens it, a search of the pending page, run now of everything due
// soon, a look-up error inside the look-up panel, and a DLQ redrive that says how many moved and keeps createdAt.
// Screenshots go to test/artifacts/.
import { SendMessageCommand } from '@aws-sdk/client-sqs'
import { mkdirSync } from 'node:fs'
import { resolve } from 'node:path'
import type { Browser, Locator, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest'
import { loadConfig } from '../../src/config'
import { DelayQueue } from '../../src/direct/delay-queue'
import { startDashboard, type Dashboard } from '../../src/ops/dashboard/server'
import { messageBody } from '../../src/sqs/envelope'
import { createEngine, type Engine } from '../../src/store/engine'
import { Leases } from '../../src/scan/claims/leases'
import { HAVE_CHROMIUM, launchChromium, requireChromium } from '../support/chromium'
import { uniquePrefix } from '../support/engine'
import { createTargetWithDlq, sqsClient } from '../support/sqs'

requireChromium("the dashboard's operator browser tests")
const ARTIFACTS = resolve(__dirname, '../artifacts')
const HOUR = 3_600_000
const sqs = sqsClient()
let engine: Engine
let queue: DelayQueue
let dashboard: Dashboard
let browser: Browser | undefined
let orders: Awaited<ReturnType<typeof createTargetWithDlq>>
let emails: Awaited<ReturnType<typeof createTargetWithDlq>>

beforeAll(async () => {
  orders = await createTargetWithDlq(sqs, 'orders')
  emails = await createTargetWithDlq(sqs, 'emails')
  const digest = await createTargetWithDlq(sqs, 'digest')
  engine = createEngine(
    loadConfig({
      REDIS_URL: inject('redisUrl'),
      SQS_ENDPOINT: inject('sqsEndpoint'),
      QUEUES: `orders=${orders.target.url},emails=${emails.target.url},digest=${digest.target.url}`,
      KEY_PREFIX: uniquePrefix('dashop'),
    }),
  )
  queue = new DelayQueue(engine)
  dashboard = await startDashboard(engine)
  if (HAVE_CHROMIUM) browser = await launchChromium()
}, 60_000)

afterAll(async () => {
  await browser?.close()
  await dashboard?.close()
  await engine?.close()
  sqs.destroy()
})

/** A page on the dashboard (at `path`), closed after the test whether it passes or not. */
async function withPage(path: string, use: (page: Page) => Promise<void>) {
  const page = await browser!.newPage({ viewport: { width: 1200, height: 900 } })
  try {
    await page.goto(`${dashboard.url}${path}`)
    await use(page)
  } finally {
    await page.close()
  }
}

const text = async (l: Locator) => ((await l.first().textContent()) ?? '').trim()
/** Waits until the element's text holds `part`, as the page refreshes itself. */
const shows = (l: Locator, part: string | RegExp, timeout = 5_000) =>
  vi.waitFor(
    async () =>
      typeof part === 'string' ? expect(await text(l)).toContain(part) : expect(await text(l)).toMatch(part),
    { timeout, interval: 100 },
  )
const runAtMs = async (id: string) => Date.parse((await queue.get(id))!.runAt)

describe('dashboard reschedule route', () => {
  it('never sends a job twice when a scanner sends it while the reschedule is handled', async () => {
    // prepare: a job due now; a scanner claims and sends it at the first read of it (the moment a read-then-replace
    // reschedule would have read it as pending)
    await queue.schedule({ id: 'race-1', queue: 'orders', payload: { n: 1 } })
    const shard = engine.keys.locate('race-1').shard
    const leases = new Leases(engine.redis, { leaseMs: 10_000, maxAttempts: 1, backoffBaseMs: 1, backoffMaxMs: 1 })
    const read = engine.store.get.bind(engine.store)
    let sent = 0
    engine.store.get = async (id: string) => {
      const view = await read(id)
      if (id === 'race-1' && sent === 0) {
        const { jobs } = await leases.claim(shard, await leases.seedHints(shard, 50), 50)
        const mine = jobs.filter((j) => j.id === 'race-1')
        await leases.ack(shard, mine)
        sent = mine.length || -1
      }
      return view
    }
    try {
      // act
      await fetch(`${dashboard.url}/api/jobs/race-1/reschedule`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', origin: dashboard.url },
        body: JSON.stringify({ delayMs: 60_000 }),
      })
    } finally {
      engine.store.get = read
    }
    // assess: sent by the scanner, or scheduled again, never both
    const after = await queue.get('race-1')
    expect(Math.max(sent, 0) + (after?.status === 'scheduled' ? 1 : 0)).toBe(1)
  })
})

describe.skipIf(!HAVE_CHROMIUM)('dashboard as an operator', () => {
  it('runs a pending row now, reschedules one and cancels one from their rows, each said in the notice', async () => {
    // prepare: three orders jobs due in an hour
    for (const id of ['row-run', 'row-move', 'row-cancel'])
      await queue.schedule({ id, queue: 'orders', payload: { id }, delayMs: HOUR })
    await withPage('/', async (page) => {
      await page.getByTestId('pending-queue').selectOption('orders')
      const row = (id: string) => page.locator(`[data-pending-id="${id}"]`)
      await row('row-cancel').waitFor({ timeout: 5_000 })
      // act: run now; reschedule to 2 minutes (the prompt answered); cancel (confirmed)
      await row('row-run').getByRole('button', { name: 'Run now' }).click()
      await shows(page.getByTestId('notice'), 'ran row-run now')
      page.once('dialog', (d) => void d.accept('120'))
      await row('row-move').getByRole('button', { name: 'Reschedule' }).click()
      await shows(page.getByTestId('notice'), 'rescheduled row-move')
      page.once('dialog', (d) => void d.accept())
      await row('row-cancel').getByRole('button', { name: 'Cancel' }).click()
      await shows(page.getByTestId('notice'), 'cancelled row-cancel')
      // assess: due now (the same job), due in ~2 minutes, gone
      expect(await runAtMs('row-run')).toBeLessThanOrEqual(Date.now())
      expect((await queue.get('row-run'))?.payload).toEqual({ id: 'row-run' })
      expect((await runAtMs('row-move')) - Date.now()).toBeGreaterThan(100_000)
      expect((await runAtMs('row-move')) - Date.now()).toBeLessThan(125_000)
      expect(await queue.get('row-cancel')).toBeNull()
    })
  }, 30_000)

  it('shows how far each due time is beside it, and opens a job from its URL, with the link to share', async () => {
    // prepare: a job due in a little over 3 minutes
    await queue.schedule({ id: 'linked-1', queue: 'emails', payload: { to: 'a@example.com' }, delayMs: 185_000 })
    await withPage('/#job=linked-1', async (page) => {
      // assess: the URL opened the job; its due time reads "in 3 min"; the link names the job
      const job = page.getByTestId('job')
      await shows(job.locator('[data-field="runAt"]'), /\(in 3 min\)/)
      expect(await text(job.locator('code'))).toBe('linked-1')
      expect(await page.getByTestId('job-link').getAttribute('href')).toBe('#job=linked-1')
      // and in the pending list, the row's time the same way
      await page.getByTestId('pending-queue').selectOption('emails')
      await shows(page.locator('[data-pending-id="linked-1"] td').first(), /\(in 3 min\)/)
      // act: open another job from its row: the URL follows
      await queue.schedule({ id: 'linked-2', queue: 'emails', payload: 2, delayMs: HOUR })
      await page.locator('[data-pending-id="linked-2"] a').click({ timeout: 5_000 })
      await shows(job.locator('code'), 'linked-2')
      expect(new URL(page.url()).hash).toBe('#job=linked-2')
      mkdirSync(ARTIFACTS, { recursive: true })
      await page
        .locator('section', { has: page.getByTestId('pending') })
        .screenshot({ path: resolve(ARTIFACTS, 'dashboard-operator-pending.png') })
    })
  }, 30_000)

  it('narrows the pending page to the rows whose id or group holds the search, and offers a look-up otherwise', async () => {
    // prepare
    for (const id of ['find-apple', 'find-banana', 'find-cherry'])
      await queue.schedule({ id, queue: 'digest', payload: null, delayMs: HOUR })
    await withPage('/', async (page) => {
      await page.getByTestId('pending-queue').selectOption('digest')
      await page.locator('[data-pending-id="find-cherry"]').waitFor({ timeout: 5_000 })
      // act
      await page.getByTestId('pending-search').fill('BAN')
      // assess: one row; a whole id not on the page is offered as a look-up
      await vi.waitFor(async () => expect(await page.locator('[data-testid="pending"] tbody tr').count()).toBe(1))
      expect(await text(page.locator('[data-testid="pending"] tbody tr code'))).toBe('find-banana')
      await page.getByTestId('pending-search').fill('find-durian')
      await shows(page.getByTestId('pending-matches'), '0 of 3 on this page match "find-durian"')
      expect(await page.getByRole('link', { name: 'look up the job "find-durian"' }).getAttribute('href')).toBe(
        '#job=find-durian',
      )
    })
  }, 30_000)

  it('runs now every job of the chosen queue due within the minutes given, saying how many, and no later one', async () => {
    // prepare: digest jobs due in 30 min and in 50 min, one in 3 hours (and the search scenario's, in an hour)
    await queue.schedule({ id: 'soon-1', queue: 'digest', payload: 1, delayMs: 30 * 60_000 })
    await queue.schedule({ id: 'soon-2', queue: 'digest', payload: 2, delayMs: 50 * 60_000 })
    await queue.schedule({ id: 'later-1', queue: 'digest', payload: 3, delayMs: 3 * HOUR })
    await withPage('/', async (page) => {
      await page.getByTestId('pending-queue').selectOption('digest')
      await page.locator('[data-pending-id="later-1"]').waitFor({ timeout: 5_000 })
      // act: 55 minutes, confirmed
      await page.getByTestId('run-due').locator('input[name="minutes"]').fill('55')
      page.once('dialog', (d) => void d.accept())
      await page.getByRole('button', { name: 'Run all now' }).click()
      // assess
      await shows(page.getByTestId('notice'), 'ran every digest job due in the next 55 min now: 2 moved')
      expect(await runAtMs('soon-2')).toBeLessThanOrEqual(Date.now())
      expect(await runAtMs('later-1')).toBeGreaterThan(Date.now() + 2 * HOUR)
      expect(await runAtMs('find-apple')).toBeGreaterThan(Date.now() + HOUR / 2)
    })
  }, 30_000)

  it('counts the minutes of Run all now on Redis’s clock, not on the browser’s', async () => {
    // prepare: an emails job due in 30 min and one in 3 h 30 min; a browser whose clock is 3 hours ahead
    await queue.schedule({ id: 'skew-soon', queue: 'emails', payload: 1, delayMs: 30 * 60_000 })
    await queue.schedule({ id: 'skew-far', queue: 'emails', payload: 2, delayMs: 3.5 * HOUR })
    const page = await browser!.newPage({ viewport: { width: 1200, height: 900 } })
    try {
      await page.addInitScript(`{ const now = Date.now; Date.now = () => now() + ${3 * HOUR} }`)
      await page.goto(`${dashboard.url}/`)
      await page.getByTestId('pending-queue').selectOption('emails')
      await page.locator('[data-pending-id="skew-far"]').waitFor({ timeout: 5_000 })
      // act: the next 55 minutes, confirmed
      await page.getByTestId('run-due').locator('input[name="minutes"]').fill('55')
      page.once('dialog', (d) => void d.accept())
      await page.getByRole('button', { name: 'Run all now' }).click()
      // assess: the job due in 30 min ran; the one due in 3 h 30 min (within 55 min of the browser's clock) did not
      await shows(page.getByTestId('notice'), /ran every emails job due in the next 55 min now: \d+ moved/)
      expect(await runAtMs('skew-soon')).toBeLessThanOrEqual(Date.now())
      expect(await runAtMs('skew-far')).toBeGreaterThan(Date.now() + 3 * HOUR)
      // a window that is no number of ms is a 400 naming it, and runs nothing
      const refused = await fetch(`${dashboard.url}/api/run-due`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ withinMs: -5, queue: 'emails' }),
      })
      expect(refused.status).toBe(400)
      expect(JSON.stringify(await refused.json())).toContain('withinMs')
    } finally {
      await page.close()
    }
  }, 30_000)

  it('says why a look-up failed inside the look-up panel, and runs a found job now from there', async () => {
    await queue.schedule({ id: 'panel-run', queue: 'orders', payload: 1, delayMs: HOUR })
    await withPage('/', async (page) => {
      const panel = page.getByTestId('lookup')
      // act: a job that does not exist
      await panel.getByPlaceholder('job id').fill('nobody-here')
      await panel.getByRole('button', { name: 'Look up' }).click()
      // assess: the error in the panel, not in the page's notice line
      await shows(
        panel.getByTestId('lookup-error'),
        'look-up of "nobody-here" failed: no pending job with id "nobody-here"',
      )
      expect(await page.getByTestId('notice').count()).toBe(0)
      // act: a job that exists, run now from the panel
      await panel.getByPlaceholder('job id').fill('panel-run')
      await panel.getByRole('button', { name: 'Look up' }).click()
      await panel.getByTestId('job-actions').getByRole('button', { name: 'Run now' }).click()
      // assess
      await shows(page.getByTestId('notice'), 'ran panel-run now')
      expect(await panel.getByTestId('lookup-error').count()).toBe(0)
      expect(await runAtMs('panel-run')).toBeLessThanOrEqual(Date.now())
    })
  }, 30_000)

  it('asks before the look-up panel cancels a job (a shared #job= link opens it one click from Cancel)', async () => {
    // prepare: a job, opened from its link
    await queue.schedule({ id: 'linked-cancel', queue: 'orders', payload: 1, delayMs: HOUR })
    await withPage('/#job=linked-cancel', async (page) => {
      const actions = page.getByTestId('lookup').getByTestId('job-actions')
      await actions.waitFor({ timeout: 5_000 })
      // act: Cancel job, and the operator says no
      const asked: string[] = []
      page.once('dialog', (d) => {
        asked.push(d.message())
        void d.dismiss()
      })
      await actions.getByRole('button', { name: 'Cancel job' }).click()
      // assess: asked, and the job is still scheduled
      await vi.waitFor(() => expect(asked).toEqual(['Cancel job linked-cancel?']), { timeout: 5_000 })
      expect((await queue.get('linked-cancel'))?.status).toBe('scheduled')
    })
  }, 30_000)

  it('redrives a DLQ saying how many moved, each job keeping its createdAt, and which one it refused, why', async () => {
    // prepare: two messages of orders jobs created a day ago in the orders DLQ, and one naming the emails queue
    const createdAtMs = Date.now() - 24 * HOUR
    for (const [id, target] of [
      ['dlq-kept-1', 'orders'],
      ['dlq-kept-2', 'orders'],
      ['dlq-stray', 'emails'],
    ] as const) {
      const body = messageBody({ id, queue: target, payloadJson: '{"n":1}', dueMs: createdAtMs, createdAtMs }, 0)
      await sqs.send(new SendMessageCommand({ QueueUrl: orders.dlq.url, MessageBody: body }))
    }
    await withPage('/', async (page) => {
      const row = page.locator('[data-dlq="orders"]')
      await shows(row.locator('[data-field="depth"]'), '3', 10_000)
      // act
      page.once('dialog', (d) => void d.accept())
      await row.getByRole('button', { name: 'Redrive' }).click()
      // assess: the count, and the refused one named with the reason, as a warning
      const notice = page.getByTestId('notice')
      await shows(
        notice,
        'redrove the orders DLQ: 2 moved, 1 refused (left in the DLQ: dlq-stray: names queue "emails"',
        10_000,
      )
      expect(await notice.getAttribute('class')).toBe('notice bad')
      for (const id of ['dlq-kept-1', 'dlq-kept-2'])
        expect((await queue.get(id))?.createdAt).toBe(new Date(createdAtMs).toISOString())
    })
  }, 40_000)

  it('redrives right after a peek: the peeked messages are back in the DLQ at once, not hidden for the peek', async () => {
    // prepare: a message of an emails job in the emails DLQ
    const body = messageBody({ id: 'peeked-1', queue: 'emails', payloadJson: '1', dueMs: 1, createdAtMs: 1 }, 0)
    const jobId = { jobId: { DataType: 'String', StringValue: 'peeked-1' } }
    await sqs.send(new SendMessageCommand({ QueueUrl: emails.dlq.url, MessageBody: body, MessageAttributes: jobId }))
    await withPage('/', async (page) => {
      const row = page.locator('[data-dlq="emails"]')
      // act: peek, then Redrive at once
      await page.getByRole('button', { name: 'Read the DLQs' }).click()
      await row.locator('[data-dlq-job="peeked-1"]').waitFor({ timeout: 10_000 })
      page.once('dialog', (d) => void d.accept())
      await row.getByRole('button', { name: 'Redrive' }).click()
      // assess: the peeked message moved
      await shows(page.getByTestId('notice'), 'redrove the emails DLQ: 1 moved', 10_000)
      expect((await queue.get('peeked-1'))?.queue).toBe('emails')
    })
  }, 40_000)
})
