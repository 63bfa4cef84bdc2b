// The operator dashboard in headless Chromium, against the real dev stack (`npm run dev`: serverless-offline, the scan
// function invoked back to back, fauxqs, the suite's redis-server), and the EMF metrics its functions write.
// One browser for the whole file. Screenshots go to test/artifacts/; with SDQ_DOCS_SCREENSHOTS=1 they replace the
// pictures under docs/ instead (a test run leaves the tracked files alone unless asked).
import {
  CreateQueueCommand,
  DeleteMessageCommand,
  DeleteQueueCommand,
  GetQueueUrlCommand,
  type Message,
  ReceiveMessageCommand,
  SendMessageCommand,
  SQSClient,
} from '@aws-sdk/client-sqs'
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { mkdirSync } from 'node:fs'
import { resolve } from 'node:path'
import type { Browser, Locator, Page } from 'playwright-core'
import { HAVE_CHROMIUM, launchChromium, requireChromium } from '../support/chromium'
import { afterAll, beforeAll, describe, expect, inject, it, onTestFinished, vi } from 'vitest'
import { startDevStack, type DevStack } from '../../local/dev-stack'
import { localCredentials } from '../../local/sqs-endpoint'
import { uniquePrefix } from '../support/engine'

requireChromium("the dashboard's browser tests")
const ARTIFACTS = resolve(__dirname, '../artifacts')
const SHOTS = process.env.SDQ_DOCS_SCREENSHOTS === '1' ? resolve(__dirname, '../../docs') : ARTIFACTS
/** Where a screenshot named as under docs/ goes. */
function shot(name: string): string {
  mkdirSync(SHOTS, { recursive: true })
  return resolve(SHOTS, name)
}
/** Payload and error text that would run script if the page inserted it as HTML. */
const HOSTILE = `<img src=x onerror=window.__xss=1><script>window.__xss=2</script>`

let stack: DevStack | undefined
let browser: Browser | undefined
let page: Page
const prefix = uniquePrefix('dash')
const output: string[] = []

beforeAll(async () => {
  ;[stack, browser] = await Promise.all([
    startDevStack({
      redisUrl: inject('redisUrl'),
      env: { KEY_PREFIX: prefix, MAX_DISPATCH_ATTEMPTS: '1' },
      onOutput: (line) => output.push(line),
      log: (line) => output.push(`[dev] ${line}`),
    }),
    HAVE_CHROMIUM ? launchChromium() : undefined,
  ])
  if (!browser) return
  page = await browser.newPage({ viewport: { width: 1200, height: 900 } })
  await page.goto(stack.dashboardUrl)
}, 180_000)

afterAll(async () => {
  await browser?.close()
  await stack?.stop()
}, 60_000)

/** Every request this file made (POSTs, and PUTs that move jobs), with its answer: what the API's metrics add up to. */
const posted: { path: string; status: number }[] = []

async function post(path: string, body: unknown, method: 'POST' | 'PUT' = 'POST') {
  const res = await fetch(`${stack!.apiUrl}${path}`, {
    method,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  })
  posted.push({ path, status: res.status })
  return { status: res.status, body: (await res.json()) as Record<string, any> }
}

const count = (queue: string, kind: 'pending' | 'inFlight' | 'dead' | 'dispatched') =>
  page.locator(`[data-queue="${queue}"] [data-count="${kind}"]`)
const sqs = () => new SQSClient({ endpoint: stack!.sqsEndpoint, region: 'us-east-1', credentials: localCredentials })
const queueName = (url: string) => url.slice(url.lastIndexOf('/') + 1)

/** Waits until the element's text is `text` (or contains it), as the page refreshes itself. */
const shows = (locator: Locator, text: string, timeout = 5_000, partly = false) =>
  vi.waitFor(
    async () => {
      const actual = (await locator.first().textContent({ timeout }))?.trim()
      if (partly) expect(actual).toContain(text)
      else expect(actual).toBe(text)
    },
    { timeout, interval: 100 },
  )
const visible = (locator: Locator, timeout = 5_000) => locator.waitFor({ state: 'visible', timeout })
const gone = (locator: Locator, timeout = 5_000) => locator.waitFor({ state: 'detached', timeout })
const eventually = (check: () => void | Promise<void>, timeout: number) => vi.waitFor(check, { timeout, interval: 200 })

/** EMF lines the functions printed (serverless-offline prefixes nothing; each is one JSON object). */
function emfLines(): Record<string, any>[] {
  return output.filter((l) => l.includes('"_aws"')).map((l) => JSON.parse(l.slice(l.indexOf('{'))))
}

describe.skipIf(!HAVE_CHROMIUM)('dashboard in a browser', () => {
  it('shows the counts change as jobs are enqueued and as they fire', async () => {
    // prepare
    await visible(page.getByTestId('queues'))
    // act: three jobs due in 30 s
    const ids: string[] = []
    for (let i = 0; i < 3; i++) {
      const { status, body } = await post('/jobs', { queue: 'orders', payload: { i }, delayMs: 30_000 })
      expect(status).toBe(201)
      ids.push(body.id)
    }
    // assess: pending (due within the minute), then, moved to now, dispatched, without reloading the page
    await shows(count('orders', 'pending'), '3', 10_000)
    await shows(page.locator('[data-horizon="minute"] .n'), '3')
    for (const [i, id] of ids.entries())
      expect((await post(`/jobs/${id}`, { queue: 'orders', payload: { i } }, 'PUT')).status).toBe(200)
    await shows(count('orders', 'dispatched'), '3', 20_000)
    await shows(count('orders', 'pending'), '0')
  }, 40_000)

  it('retries a dead job: it leaves the dead set and is sent', async () => {
    // prepare: SQS refuses jobs for "emails" (its queue is gone); one attempt sends a job to the dead set
    const client = sqs()
    const emailsUrl = stack!.queues.emails!
    await client.send(new DeleteQueueCommand({ QueueUrl: emailsUrl }))
    const { body: job } = await post('/jobs', { id: 'dead-mail-1', queue: 'emails', payload: { note: HOSTILE } })
    const row = page.locator('[data-dead-id="dead-mail-1"]')
    await visible(row, 15_000)
    await shows(count('emails', 'dead'), '1')
    await client.send(new CreateQueueCommand({ QueueName: queueName(emailsUrl) }))
    expect((await client.send(new GetQueueUrlCommand({ QueueName: queueName(emailsUrl) }))).QueueUrl).toBe(emailsUrl)
    client.destroy()
    // act
    await row.getByRole('button', { name: 'Retry' }).click()
    // assess
    await shows(page.getByTestId('notice'), `retried ${job.id}`)
    await gone(row)
    await shows(count('emails', 'dead'), '0')
    await shows(count('emails', 'dispatched'), '1', 15_000)
  }, 40_000)

  it('looks a job up by id, reschedules it and cancels it', async () => {
    // prepare
    const { body: job } = await post('/jobs', {
      id: 'page-cancel-1',
      queue: 'orders',
      payload: { html: HOSTILE },
      delayMs: 3_600_000,
    })
    // act: look up
    await page.getByPlaceholder('job id').fill(job.id)
    await page.getByRole('button', { name: 'Look up' }).click()
    // assess: the job, its payload as text
    const shown = page.getByTestId('job')
    await shows(shown.locator('[data-field="status"]'), 'scheduled')
    await shows(shown.locator('[data-field="payload"]'), HOSTILE, 5_000, true)
    // act: reschedule to 2 minutes from now
    await page.locator('input[name="seconds"]').fill('120')
    await page.getByTestId('job-actions').getByRole('button', { name: 'Reschedule' }).click()
    await shows(page.getByTestId('notice'), `rescheduled ${job.id}`)
    const moved = (await (await fetch(`${stack!.apiUrl}/jobs/${job.id}`)).json()) as { runAt: string }
    expect(Date.parse(moved.runAt) - Date.now()).toBeGreaterThan(100_000)
    expect(Date.parse(moved.runAt) - Date.now()).toBeLessThan(125_000)
    // the API's run-now routes answer on the dev stack (serverless.yml's httpApi events)
    const due = await post('/jobs/run-due', { before: Date.now(), queue: 'orders' })
    expect(due).toEqual({ status: 200, body: { promoted: 0, cursor: null } })
    // act: cancel
    page.once('dialog', (d) => void d.accept())
    await page.getByTestId('job-actions').getByRole('button', { name: 'Cancel job' }).click()
    // assess
    await shows(page.getByTestId('notice'), `cancelled ${job.id}`)
    expect((await fetch(`${stack!.apiUrl}/jobs/${job.id}`)).status).toBe(404)
  })

  it("shows a dispatched job's receipt: when it was due, when SQS took it, as which message (screenshot)", async () => {
    // prepare: a job due now, in SQS a moment later
    const { body: job } = await post('/jobs', { id: 'fired-for-page-1', queue: 'orders', payload: { n: 1 } })
    let receipt: Record<string, any> = {}
    await eventually(async () => {
      receipt = (await (await fetch(`${stack!.apiUrl}/jobs/${job.id}`)).json()) as Record<string, any>
      expect(receipt.status).toBe('dispatched')
    }, 20_000)
    // act
    await page.getByPlaceholder('job id').fill(job.id)
    await page.getByRole('button', { name: 'Look up' }).click()
    // assess: the page shows the receipt the API answers, and offers no cancel for a job already in SQS
    const shown = page.getByTestId('job')
    await shows(shown.locator('[data-field="status"]'), 'dispatched', 5_000, true)
    await shows(shown.locator('[data-field="messageId"]'), receipt.messageId)
    await shows(shown.locator('[data-field="attempts"]'), '1')
    expect(receipt.messageId).toMatch(/^[0-9a-f-]{36}$/)
    expect(Date.parse(receipt.acceptedAt)).toBeGreaterThanOrEqual(Date.parse(receipt.dueAt) - 1_000)
    expect(await page.getByRole('button', { name: 'Cancel job' }).count()).toBe(0)
    await page.getByTestId('job').screenshot({ path: shot('dashboard-dispatched-job.png') })
  }, 40_000)

  it('shows an occurrence of a schedule once in SQS: its receipt and its schedule', async () => {
    // prepare: an hourly schedule whose first occurrence is due in a second; that one occurrence dispatched (the next
    // is an hour away, so the orders queue gets exactly one job from it: the metrics below count it)
    const startAt = Date.now() + 1000
    const hourly = { queue: 'orders', payload: { s: 1 }, everyMs: 3_600_000, startAt }
    const put = await post('/schedules/hourly-page', hourly, 'PUT')
    expect(put.status).toBe(201)
    const first = `hourly-page@${Date.parse(put.body.nextRunAt)}`
    let receipt: Record<string, any> = {}
    await eventually(async () => {
      receipt = (await (await fetch(`${stack!.apiUrl}/jobs/${first}`)).json()) as Record<string, any>
      expect(receipt.status).toBe('dispatched')
    }, 20_000)
    // (deleted at once, its pending occurrence with it: more would join the orders queue the next scenarios page through)
    expect((await fetch(`${stack!.apiUrl}/schedules/hourly-page`, { method: 'DELETE' })).status).toBe(204)
    // act
    await page.getByPlaceholder('job id').fill(first)
    await page.getByRole('button', { name: 'Look up' }).click()
    // assess: dispatched, with the message SQS answered and the schedule it belongs to
    const shown = page.getByTestId('job')
    await shows(shown.locator('[data-field="status"]'), 'dispatched', 5_000, true)
    await shows(shown.locator('[data-field="messageId"]'), receipt.messageId)
    await shows(shown.locator('[data-field="schedule"]'), 'hourly-page', 5_000, true)
  }, 40_000)

  it('pages through the pending jobs of one queue in due order, and opens one (screenshot)', async () => {
    // prepare: 25 jobs for emails due in 5 days, one second apart, created in reverse order. Due times are absolute:
    // with delays, a POST answered more than a second after the one before (a loaded machine) would turn the order.
    const base = Date.now() + 432_000_000
    for (let i = 24; i >= 0; i--) {
      await post('/jobs', {
        id: `browse-${String(i).padStart(2, '0')}`,
        queue: 'emails',
        payload: { i },
        runAt: base + i * 1_000,
      })
    }
    const expected = Array.from({ length: 25 }, (_, i) => `browse-${String(i).padStart(2, '0')}`)
    // The other tests see every queue again, and none of these jobs, also when this one fails.
    onTestFinished(async () => {
      await page.getByTestId('pending-queue').selectOption('')
      for (const id of expected)
        expect((await fetch(`${stack!.apiUrl}/jobs/${id}`, { method: 'DELETE' })).status).toBe(204)
    })
    const ids = (rows: string[]) => rows.map((r) => r.trim())
    const shownIds = () => page.locator('[data-testid="pending"] tbody tr code').allTextContents()
    // act: that queue's first page
    await page.getByTestId('pending-queue').selectOption('emails')
    // assess: 20 jobs, the earliest first; the next page has the other 5; back again. The label alone does not tell
    // the queue's page from the page of all queues shown before the change (also "jobs 1–20", read by a live
    // refresh while the jobs above were being made: browse-03… under load), so wait for the rows themselves
    await shows(page.getByTestId('pending-range'), 'jobs 1–20 in due order')
    await eventually(async () => expect(ids(await shownIds())).toEqual(expected.slice(0, 20)), 5_000)
    await page.getByRole('button', { name: 'Next page' }).click()
    await shows(page.getByTestId('pending-range'), 'jobs 21–25 in due order')
    expect(ids(await shownIds())).toEqual(expected.slice(20))
    expect(await page.getByRole('button', { name: 'Next page' }).isDisabled()).toBe(true)
    await page.getByRole('button', { name: 'Previous page' }).click()
    await shows(page.getByTestId('pending-range'), 'jobs 1–20 in due order')
    await page.locator('[data-pending-id="browse-03"] a').click()
    await shows(page.getByTestId('job').locator('[data-field="status"]'), 'scheduled')
    await shows(page.getByTestId('job').locator('code').first(), 'browse-03')
    await page
      .locator('section', { has: page.getByTestId('pending') })
      .screenshot({ path: shot('dashboard-pending.png') })
  }, 40_000)

  it('lists a schedule with its rule, time zone and runs, pauses, resumes and deletes it (screenshot)', async () => {
    // prepare: a yearly schedule (its next run is weeks away)
    const put = await post(
      '/schedules/new-year-report',
      { queue: 'orders', payload: { r: 1 }, cron: '0 9 1 1 *', timezone: 'Europe/Paris' },
      'PUT',
    )
    expect(put.status).toBe(201)
    const row = page.locator('[data-schedule-id="new-year-report"]')
    await visible(row, 10_000)
    // assess: its rule, zone, next run, no runs yet, not paused
    await shows(row.locator('td').nth(2), '0 9 1 1 *')
    await shows(row.locator('td').nth(3), 'Europe/Paris')
    await shows(row.locator('[data-field="nextRunAt"]'), `${put.body.nextRunAt.replace('T', ' ').slice(0, 19)}Z`)
    await shows(row.locator('[data-field="runs"]'), '0')
    await shows(row.locator('[data-field="paused"]'), 'no')
    await page
      .locator('section', { has: page.getByTestId('schedules') })
      .screenshot({ path: shot('dashboard-schedules.png') })
    // the job page of its pending occurrence names the schedule
    await page.getByPlaceholder('job id').fill(`new-year-report@${Date.parse(put.body.nextRunAt)}`)
    await page.getByRole('button', { name: 'Look up' }).click()
    await shows(page.getByTestId('job').locator('[data-field="schedule"]'), 'new-year-report', 5_000, true)
    // act: pause, then resume
    await row.getByRole('button', { name: 'Pause' }).click()
    await shows(page.getByTestId('notice'), 'paused new-year-report')
    await shows(row.locator('[data-field="paused"]'), 'yes')
    await shows(row.locator('[data-field="nextRunAt"]'), 'paused')
    expect(
      ((await (await fetch(`${stack!.apiUrl}/schedules/new-year-report`)).json()) as { paused: boolean }).paused,
    ).toBe(true)
    await row.getByRole('button', { name: 'Resume' }).click()
    await shows(row.locator('[data-field="paused"]'), 'no')
    // act: delete (the page asks first)
    page.once('dialog', (d) => void d.accept())
    await row.getByRole('button', { name: 'Delete' }).click()
    // assess: gone from the page and from the API
    await shows(page.getByTestId('notice'), 'deleted schedule new-year-report')
    expect((await fetch(`${stack!.apiUrl}/schedules/new-year-report`)).status).toBe(404)
  }, 40_000)

  it('shows a message in a target queue DLQ with its job id, apart from the dead set, and redrives it (screenshot)', async () => {
    // prepare: a job the delay queue sends to emails (no consumer there); the test moves its message to the emails DLQ
    // as SQS does after maxReceiveCount failed receives (same body and job id attribute)
    const client = sqs()
    const { body: job } = await post('/jobs', { id: 'dlq-mail-1', queue: 'emails', payload: { to: 'a@example.com' } })
    let message: Message | undefined
    await eventually(async () => {
      const got = await client.send(
        new ReceiveMessageCommand({
          QueueUrl: stack!.queues.emails!,
          MessageAttributeNames: ['All'],
          WaitTimeSeconds: 1,
        }),
      )
      message = got.Messages?.find((m) => m.MessageAttributes?.jobId?.StringValue === job.id)
      expect(message).toBeDefined()
    }, 20_000)
    const dlqUrl = stack!.deadLetterQueues.emails!
    await client.send(
      new SendMessageCommand({
        QueueUrl: dlqUrl,
        MessageBody: message!.Body!,
        MessageAttributes: message!.MessageAttributes,
      }),
    )
    await client.send(
      new DeleteMessageCommand({ QueueUrl: stack!.queues.emails!, ReceiptHandle: message!.ReceiptHandle! }),
    )
    // act
    await page.getByRole('button', { name: 'Read the DLQs' }).click()
    // assess: the emails DLQ holds it, named by its job id; the dead set does not list it
    const row = page.locator('[data-dlq="emails"]')
    await shows(row.locator('[data-field="depth"]'), '1')
    await visible(row.locator(`[data-dlq-job="${job.id}"]`))
    expect(await page.locator(`[data-dead-id="${job.id}"]`).count()).toBe(0)
    await page.locator('section', { has: page.getByTestId('dlqs') }).screenshot({ path: shot('dashboard-dlq.png') })
    // act: redrive (the page asks first)
    page.once('dialog', (d) => void d.accept())
    await row.getByRole('button', { name: 'Redrive' }).click()
    // assess: back in the delay queue and sent again; the DLQ is empty
    await shows(page.getByTestId('notice'), 'redrove the emails DLQ: 1 moved')
    await shows(row.locator('[data-field="depth"]'), '0')
    await eventually(async () => {
      const again = (await (await fetch(`${stack!.apiUrl}/jobs/${job.id}`)).json()) as { status: string }
      expect(again.status).toBe('dispatched')
    }, 20_000)
    client.destroy()
  }, 60_000)

  it('renders ids, payloads and errors holding HTML or script as text', async () => {
    // prepare: a dead job whose payload is markup, and a look-up of an id that is markup
    const client = sqs()
    await client.send(new DeleteQueueCommand({ QueueUrl: stack!.queues.emails! }))
    await post('/jobs', { id: 'dead-mail-2', queue: 'emails', payload: { note: HOSTILE } })
    const row = page.locator('[data-dead-id="dead-mail-2"]')
    await visible(row, 15_000)
    await client.send(new CreateQueueCommand({ QueueName: queueName(stack!.queues.emails!) }))
    client.destroy()
    await page.getByPlaceholder('job id').fill('<b id="injected">x</b>')
    await page.getByRole('button', { name: 'Look up' }).click()
    await shows(page.getByTestId('lookup-error'), '<b id="injected">x</b>', 5_000, true)
    // assess: the markup is on the page as characters, and nothing of it became an element or ran
    await shows(row.locator('code.payload'), HOSTILE, 5_000, true)
    expect(await page.locator('#app img, #app script, #injected').count()).toBe(0)
    expect(await page.evaluate(() => (globalThis as { __xss?: number }).__xss)).toBeUndefined()
  }, 40_000)

  it('charts the lateness of the scan windows and the due jobs by horizon (screenshot)', async () => {
    // prepare: jobs due within the minute, the hour, the day
    for (const [i, delayMs] of [50_000, 50_000, 1_800_000, 40_000_000, 40_000_000, 40_000_000].entries()) {
      await post('/jobs', { id: `later-${i}`, queue: 'orders', payload: { i }, delayMs })
    }
    // assess: the page shows them, and the scan function's windows (every 10 s) with their lateness
    await shows(page.locator('[data-horizon="minute"] .n'), '2')
    await shows(page.locator('[data-horizon="hour"] .n'), '3')
    await shows(page.locator('[data-horizon="day"] .n'), '6')
    await shows(page.getByTestId('lateness'), 'last window with sends', 25_000, true)
    const bar = await page
      .locator('[data-horizon="minute"] .fill')
      .evaluate((e) => (e as unknown as { style: { width: string } }).style.width)
    // (the bars are scaled to all scheduled jobs: 6 here, unless an earlier scenario failed before its clean-up)
    const all = Number(await page.locator('[data-horizon="all"] .n').textContent())
    expect(parseFloat(bar)).toBeCloseTo((100 * 2) / all, 1)
    // the picture: one job looked up
    await page.getByPlaceholder('job id').fill('later-2')
    await page.getByRole('button', { name: 'Look up' }).click()
    await shows(page.getByTestId('job').locator('[data-field="status"]'), 'scheduled')
    // with a recurring schedule in its panel (deleted after: its pending occurrence would count in later tests)
    const digest = { queue: 'emails', payload: {}, cron: '0 8 * * 1', timezone: 'UTC' }
    expect((await post('/schedules/weekly-digest', digest, 'PUT')).status).toBe(201)
    await visible(page.locator('[data-schedule-id="weekly-digest"]'), 10_000)
    await page.screenshot({ path: shot('dashboard.png'), fullPage: true })
    expect((await fetch(`${stack!.apiUrl}/schedules/weekly-digest`, { method: 'DELETE' })).status).toBe(204)
  }, 40_000)
})

describe('dashboard server', () => {
  it('refuses actions that are not JSON (415) or come from another origin (403), each with its own code, and changes nothing', async () => {
    // prepare
    const { body: job } = await post('/jobs', { id: 'guarded-1', queue: 'orders', payload: {}, delayMs: 3_600_000 })
    const cancel = (headers: Record<string, string>) =>
      fetch(`${stack!.dashboardUrl}/api/jobs/${job.id}`, { method: 'DELETE', headers })
    // act
    const form = await cancel({ 'content-type': 'application/x-www-form-urlencoded' })
    const foreign = await cancel({ 'content-type': 'application/json', origin: 'http://evil.example' })
    // assess
    expect(form.status).toBe(415)
    expect(((await form.json()) as { error: { code: string } }).error.code).toBe('UnsupportedMediaType')
    expect(foreign.status).toBe(403)
    expect(((await foreign.json()) as { error: { code: string } }).error.code).toBe('Forbidden')
    expect((await fetch(`${stack!.apiUrl}/jobs/${job.id}`)).status).toBe(200)
    expect((await cancel({ 'content-type': 'application/json' })).status).toBe(204)
  })

  it('refuses a reschedule without a time instead of firing the job now', async () => {
    // prepare
    const { body: job } = await post('/jobs', { id: 'no-time-1', queue: 'orders', payload: {}, delayMs: 3_600_000 })
    // act
    const answer = await fetch(`${stack!.dashboardUrl}/api/jobs/${job.id}/reschedule`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    })
    // assess
    expect(answer.status).toBe(400)
    expect(((await answer.json()) as { error: { details: { path: string }[] } }).error.details[0]!.path).toBe('delayMs')
    const after = (await (await fetch(`${stack!.apiUrl}/jobs/${job.id}`)).json()) as { runAt: string }
    expect(after.runAt).toBe(job.runAt)
  })

  it('is served alone by `npm run sdq -- dashboard` over any REDIS_URL, with no AWS settings', async () => {
    // prepare: a job, and the CLI over the dev stack's Redis and key prefix, with no AWS variable at all
    await post('/jobs', { queue: 'orders', payload: { alone: true }, delayMs: 3_600_000 })
    const env: NodeJS.ProcessEnv = {
      PATH: process.env.PATH,
      REDIS_URL: stack!.redisUrl,
      // The stack's target queues by name (their URLs lead nowhere: no AWS settings here)
      QUEUES: Object.keys(stack!.queues)
        .map((name) => `${name}=http://127.0.0.1:9/${name}`)
        .join(','),
    }
    env.KEY_PREFIX = prefix
    const cli = spawn(process.execPath, ['scripts/run-ts.mjs', 'src/ops/sdq.ts', 'dashboard', '--port', '0'], {
      cwd: resolve(__dirname, '../..'),
      env,
      stdio: ['ignore', 'pipe', 'inherit'],
    })
    try {
      let printed = ''
      cli.stdout!.on('data', (chunk) => (printed += chunk))
      await vi.waitFor(() => expect(printed).toMatch(/dashboard on http:\/\/127\.0\.0\.1:\d+/), {
        timeout: 20_000,
        interval: 100,
      })
      const url = printed.match(/http:\/\/127\.0\.0\.1:\d+/)![0]
      // act
      const [alone, withStack] = await Promise.all(
        [url, stack!.dashboardUrl].map(
          async (u) => ((await (await fetch(`${u}/api/overview`)).json()) as { queues: unknown }).queues,
        ),
      )
      // assess: the same counts as the dev stack's own dashboard; no SQS access, said so
      expect(alone).toEqual(withStack)
      const dlqs = (await (await fetch(`${url}/api/dlqs`)).json()) as { available: boolean; reason: string }
      expect(dlqs).toEqual({ available: false, reason: expect.stringContaining('no SQS access configured') })
      expect(Object.keys(alone as object)).toContain('orders')
    } finally {
      cli.kill('SIGTERM')
      if (cli.exitCode === null) await once(cli, 'exit')
    }
  }, 40_000)
})

// These count the jobs the browser scenarios made, so they go with them.
describe.skipIf(!HAVE_CHROMIUM)('metrics written by the dev stack functions (EMF)', () => {
  it('the scan function reports the jobs it sent per queue, with their lateness', async () => {
    // The jobs of the tests above: 5 for orders (3, the one whose receipt the page showed, and the schedule's one
    // occurrence) and 3 for emails sent
    // (1, and the DLQ's job twice: before and after its redrive), 2 dead-lettered for emails (a 10 s window).
    await eventually(() => {
      const lines = emfLines().filter((l) => l.service === 'serverless-delay-queue-local')
      const sum = (queue: string, name: string) =>
        lines.filter((l) => l.queue === queue).reduce((n, l) => n + (l[name] ?? 0), 0)
      expect(sum('orders', 'Dispatched')).toBe(5)
      expect(sum('emails', 'Dispatched')).toBe(3)
      expect(sum('emails', 'DeadLettered')).toBe(2)
      const late = lines.filter((l) => 'DispatchLatenessMax' in l)
      expect(late.length).toBeGreaterThan(0)
      expect(late[0]._aws.CloudWatchMetrics[0].Metrics).toContainEqual({
        Name: 'DispatchLatenessMax',
        Unit: 'Milliseconds',
      })
    }, 25_000)
  }, 30_000)

  it('the API writes no metric lines: its requests and errors are AWS/ApiGateway or AWS/Lambda Url* metrics', async () => {
    const mine = posted.filter((p) => p.path === '/jobs')
    expect(mine.filter((p) => p.status === 201).length).toBeGreaterThanOrEqual(10)
    expect(emfLines().filter((l) => 'route' in l || 'ApiRequests' in l)).toEqual([])
  })
})
