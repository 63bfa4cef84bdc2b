// The dashboard's DLQ panel and "due jobs" bars, over the suite's redis-server and SQS endpoint (fauxqs): a redrive
// holds messages to the rule `sdq redrive` holds them to, a GET reads depths without receiving anything, a peek gives
// the messages back at once (the DLQ still shows them, with its Redrive), and the bars get their widths under the
// page's CSP. In headless Chromium where a page is involved.
import {
  ChangeMessageVisibilityBatchCommand,
  ReceiveMessageCommand,
  SendMessageCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs'
import type { Browser } from 'playwright-core'
import { HAVE_CHROMIUM, launchChromium, requireChromium } from '../support/chromium'
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest'
import { loadConfig } from '../../src/config'
import { DelayQueue } from '../../src/direct/delay-queue'
import { DlqReader } from '../../src/ops/dashboard/dlqs'
import { startDashboard, type Dashboard } from '../../src/ops/dashboard/server'
import { messageBody } from '../../src/sqs/envelope'
import { createEngine, type Engine } from '../../src/store/engine'
import { uniquePrefix } from '../support/engine'
import { approximateCount, createTargetWithDlq, sqsClient } from '../support/sqs'

requireChromium("the dashboard DLQ panel's browser tests")

const sqs = sqsClient()
let engine: Engine
let dashboard: Dashboard
let queue: DelayQueue
let browser: Browser | undefined
let orders: Awaited<ReturnType<typeof createTargetWithDlq>>
let emails: Awaited<ReturnType<typeof createTargetWithDlq>>

beforeAll(async () => {
  orders = await createTargetWithDlq(sqs, 'orders')
  emails = await createTargetWithDlq(sqs, 'emails')
  engine = createEngine(
    loadConfig({
      REDIS_URL: inject('redisUrl'),
      SQS_ENDPOINT: inject('sqsEndpoint'),
      QUEUES: `orders=${orders.target.url},emails=${emails.target.url}`,
      KEY_PREFIX: uniquePrefix('dlqpanel'),
    }),
  )
  queue = new DelayQueue(engine)
  dashboard = await startDashboard(engine)
  if (HAVE_CHROMIUM) browser = await launchChromium([])
}, 60_000)

afterAll(async () => {
  await browser?.close()
  await dashboard?.close()
  await engine?.close()
  sqs.destroy()
})

/** A message as the scanner writes it for job `id` naming `target`, put straight into `dlqUrl`. */
async function deadLetter(dlqUrl: string, id: string, target: string) {
  const body = messageBody({ id, queue: target, payloadJson: '{"n":1}', dueMs: 0, createdAtMs: 0 }, 0)
  await sqs.send(
    new SendMessageCommand({
      QueueUrl: dlqUrl,
      MessageBody: body,
      MessageAttributes: { jobId: { DataType: 'String', StringValue: id } },
    }),
  )
}

/** An action as the page sends it (JSON, its own origin). */
const action = (path: string) =>
  fetch(`${dashboard.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: dashboard.url },
    body: '{}',
  })

type Report = { available: true; dlqs: { queue: string; depth: number; inFlight: number; messages: unknown[] }[] }

/** Receives the DLQ's messages now (hidden for 1 s) and says how often each had been received, by job id. */
async function receiveCounts(dlqUrl: string): Promise<Record<string, number>> {
  const { Messages = [] } = await sqs.send(
    new ReceiveMessageCommand({
      QueueUrl: dlqUrl,
      MaxNumberOfMessages: 10,
      VisibilityTimeout: 1,
      WaitTimeSeconds: 0,
      MessageAttributeNames: ['All'],
      MessageSystemAttributeNames: ['ApproximateReceiveCount'],
    }),
  )
  return Object.fromEntries(
    Messages.map((m) => [m.MessageAttributes!.jobId!.StringValue!, Number(m.Attributes!.ApproximateReceiveCount)]),
  )
}

describe('dashboard DLQ routes', () => {
  it('redrives only messages naming the DLQ’s own queue, as `sdq redrive` does; the stray one stays in the DLQ', async () => {
    // prepare: the orders DLQ holds a message of orders and one whose body names emails
    await deadLetter(orders.dlq.url, 'panel-good-1', 'orders')
    await deadLetter(orders.dlq.url, 'panel-stray-1', 'emails')
    // act
    const answer = await action('/api/dlqs/orders/redrive')
    // assess: one moved, the stray one skipped with the CLI's reason, never scheduled for emails
    expect(answer.status).toBe(200)
    expect(await answer.json()).toEqual({
      queue: 'orders',
      moved: 1,
      skipped: [
        expect.objectContaining({ jobId: 'panel-stray-1', reason: expect.stringMatching(/names queue "emails"/) }),
      ],
    })
    expect((await queue.get('panel-good-1'))?.queue).toBe('orders')
    expect(await queue.get('panel-stray-1')).toBeNull()
    expect(await approximateCount(sqs, orders.dlq.url)).toBe(1)
  })

  it('answers a redrive of a queue not in QUEUES with a 404 naming it, and touches no DLQ', async () => {
    // act
    const answer = await action('/api/dlqs/nosuch/redrive')
    // assess
    expect(answer.status).toBe(404)
    expect(answer.headers.get('content-type')).toBe('application/json')
    const { error } = (await answer.json()) as { error: { code: string; message: string } }
    expect(error.code).toBe('NotFound')
    expect(error.message).toContain('"nosuch"')
  })

  it('reads depths on GET without receiving a message; a peek (POST) gives the messages back at once', async () => {
    // prepare: a DLQ with one message of its own (the emails DLQ: the orders one holds the first scenario's stray)
    await deadLetter(emails.dlq.url, 'panel-peek-1', 'emails')
    // act: two depth reads, then a peek, then a depth read
    const gets = [
      (await (await fetch(`${dashboard.url}/api/dlqs`)).json()) as Report,
      (await (await fetch(`${dashboard.url}/api/dlqs`)).json()) as Report,
    ]
    const peek = await action('/api/dlqs/peek')
    const afterPeek = (await (await fetch(`${dashboard.url}/api/dlqs`)).json()) as Report
    // assess: the GETs count the message and list none; the peek lists it; afterwards it is still there, visible to
    // the next receive, which is its second (one peek, no GET)
    for (const got of gets) {
      const d = got.dlqs.find((x) => x.queue === 'emails')!
      expect({ depth: d.depth, messages: d.messages }).toEqual({ depth: 1, messages: [] })
    }
    expect(peek.status).toBe(200)
    const peeked = ((await peek.json()) as Report).dlqs.find((d) => d.queue === 'emails')!
    expect(peeked.messages).toEqual([expect.objectContaining({ jobId: 'panel-peek-1', receives: 1 })])
    expect(afterPeek.dlqs.find((x) => x.queue === 'emails')!.depth).toBe(1)
    expect(await receiveCounts(emails.dlq.url)).toEqual({ 'panel-peek-1': 2 })
  })

  it('refuses a peek sent as a GET-like cross-site request: a peek needs the action checks', async () => {
    // act: what an <img> of another site could make the browser send
    const img = await fetch(`${dashboard.url}/api/dlqs/peek`)
    const foreign = await fetch(`${dashboard.url}/api/dlqs/peek`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain', origin: 'http://evil.example' },
    })
    // assess
    expect(img.status).toBe(404)
    expect(foreign.status).toBe(415)
  })
})

describe('dashboard DLQ peek, given back', () => {
  it('says so when SQS does not take a peeked message back: a redrive would not see it until the hold ends', async () => {
    // prepare: a DLQ with one message; SQS answers the give-back with a per-message failure (its handle is refused)
    const q = await createTargetWithDlq(sqs, 'giveback')
    await deadLetter(q.dlq.url, 'giveback-1', 'giveback')
    const refusing = {
      send: (command: unknown) =>
        command instanceof ChangeMessageVisibilityBatchCommand
          ? sqs.send(
              new ChangeMessageVisibilityBatchCommand({
                ...command.input,
                Entries: command.input.Entries!.map((e) => ({ ...e, ReceiptHandle: 'not-a-receipt-handle' })),
              }),
            )
          : sqs.send(command as never),
      destroy: () => undefined,
    } as unknown as SQSClient
    const config = { ...engine.config, queues: { giveback: q.target.url } }
    const reader = new DlqReader(config, engine.store, refusing)
    // act
    const report = await reader.peek()
    // assess: the message is listed, and the panel says it is held
    expect(report).toMatchObject({
      available: true,
      dlqs: [{ queue: 'giveback', messages: [expect.objectContaining({ jobId: 'giveback-1' })] }],
    })
    const [view] = (report as Extract<typeof report, { available: true }>).dlqs
    expect(view!.error).toBe('1 peeked message(s) not given back: hidden for up to 30 s')
  })
})

describe.skipIf(!HAVE_CHROMIUM)('dashboard DLQ panel and bars in a browser', () => {
  it('still shows a DLQ’s message and its Redrive after a peek, and after the page is opened again', async () => {
    // prepare: the orders DLQ holds the first scenario's stray message; one more
    await deadLetter(orders.dlq.url, 'panel-browser-1', 'orders')
    const page = await browser!.newPage()
    try {
      await page.goto(dashboard.url)
      const row = page.locator('[data-dlq="orders"]')
      // act: peek, then open the page again (its depth read)
      await page.getByRole('button', { name: 'Read the DLQs' }).click()
      await row.locator('[data-dlq-job="panel-browser-1"]').waitFor({ state: 'visible', timeout: 10_000 })
      await page.reload()
      // assess: both messages counted, the Redrive offered
      await vi.waitFor(
        async () => expect((await row.locator('[data-field="depth"]').textContent())?.trim()).toBe('2'),
        {
          timeout: 10_000,
          interval: 100,
        },
      )
      expect(await row.getByRole('button', { name: 'Redrive' }).count()).toBe(1)
    } finally {
      await page.close()
    }
  }, 30_000)

  it('draws each bar of the due jobs at its share of all scheduled jobs, with no CSP violation', async () => {
    // prepare: 1 job due within the minute, 3 more within the day (with the redriven one, due now, in "all")
    for (const [i, delayMs] of [30_000, 7_200_000, 7_200_000, 7_200_000].entries())
      await queue.schedule({ id: `bar-${i}`, queue: 'orders', payload: { i }, delayMs })
    const page = await browser!.newPage({ viewport: { width: 1200, height: 900 } })
    const violations: string[] = []
    page.on('console', (m) => m.text().includes('Content Security Policy') && violations.push(m.text()))
    try {
      // act: the page's first render (the next refresh is 2 s later)
      await page.goto(dashboard.url)
      await page.locator('[data-horizon="minute"] .fill').waitFor({ state: 'attached', timeout: 10_000 })
      // assess: widths as shares of "all", right from the first render
      const shares: { fill: number; n: number }[] = []
      for (const key of ['minute', 'day', 'month', 'all']) {
        const bar = page.locator(`[data-horizon="${key}"]`)
        const [fill, track] = [await bar.locator('.fill').boundingBox(), await bar.locator('.track').boundingBox()]
        shares.push({ fill: fill!.width / track!.width, n: Number(await bar.locator('.n').textContent()) })
      }
      expect(violations).toEqual([])
      const all = shares[3]!.n
      for (const s of shares) expect(s.fill).toBeCloseTo(s.n / all, 2)
      // (not the full width a refused style attribute leaves)
      expect(shares[0]!.fill).toBeLessThan(0.9)
    } finally {
      await page.close()
    }
  }, 30_000)
})
