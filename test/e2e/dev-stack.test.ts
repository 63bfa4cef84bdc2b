// The local stack end to end, as `npm run dev` runs it: the real HTTP API on serverless-offline, the scan function
// invoked back to back, fauxqs with the queues serverless.yml declares, the example consumer fed by the SQS poller.
import { sleep } from '../../devkit/sleep'
import { GetQueueAttributesCommand, type Message, ReceiveMessageCommand } from '@aws-sdk/client-sqs'
import { describe, expect, it } from 'vitest'
import { jobOutcomeLine } from '../../local/job-lines'
import { listeningAt } from '../../local/ports'
import { devStackForFile } from '../support/dev-stack'
import { uniquePrefix } from '../support/engine'
import { foreignHostForFile } from '../support/foreign-host'
import { sqsClient } from '../support/sqs'

// The suite's redis-server, with a key prefix of this file's own.
const dev = devStackForFile({ env: { KEY_PREFIX: uniquePrefix('e2e') } })
const { output } = dev
/** Another host on this machine (a network namespace), for the loopback-only test. */
const other = foreignHostForFile()

async function postJob(body: unknown) {
  const res = await fetch(`${dev.stack.apiUrl}/jobs`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  })
  return { status: res.status, location: res.headers.get('location'), body: (await res.json()) as Record<string, any> }
}

/** The first output line that satisfies `match`, parsed as JSON (handlers log JSON lines). */
async function waitForLine(match: (line: string) => boolean, timeoutMs: number): Promise<Record<string, any>> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const line = output.find(match)
    if (line) return JSON.parse(line.slice(line.indexOf('{')))
    if (Date.now() > deadline)
      throw new Error(`no such line after ${timeoutMs} ms; output:\n${output.slice(-40).join('\n')}`)
    await sleep(100)
  }
}

const sqs = () => sqsClient(dev.stack.sqsEndpoint)

describe('npm run dev: the local stack', () => {
  it('creates every target queue of serverless.yml with its DLQ and redrive policy', async () => {
    const client = sqs()
    expect(Object.keys(dev.stack.queues)).toEqual(['orders', 'emails', 'webhooks'])
    for (const [name, url] of Object.entries(dev.stack.queues)) {
      const { Attributes } = await client.send(
        new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ['All'] }),
      )
      const dlq = await client.send(
        new GetQueueAttributesCommand({ QueueUrl: dev.stack.deadLetterQueues[name], AttributeNames: ['QueueArn'] }),
      )
      const redrive = JSON.parse(Attributes!.RedrivePolicy!)
      expect(redrive.deadLetterTargetArn).toBe(dlq.Attributes!.QueueArn)
      expect(Number(redrive.maxReceiveCount)).toBeGreaterThanOrEqual(1)
      expect(Attributes!.MaximumMessageSize).toBe('1048576')
    }
    client.destroy()
  })

  it('hands a job posted through the HTTP API to the example consumer once it is due, never before', async () => {
    const posted = await postJob({ queue: 'orders', payload: { orderId: 42 }, delayMs: 1500 })
    expect(posted.status).toBe(201)
    expect(posted.location).toBe(`/jobs/${posted.body.id}`)

    const received = await waitForLine((l) => l.includes('"job received"') && l.includes(posted.body.id), 30_000)

    expect(received.queue).toBe('orders')
    expect(received.attempt).toBe(1)
    expect(Date.parse(received.runAt)).toBe(Date.parse(posted.body.runAt))
    expect(Date.parse(received.dispatchedAt)).toBeGreaterThanOrEqual(Date.parse(posted.body.runAt))
    // Done means deleted from the queue: nothing is left to redeliver.
    await waitForLine((l) => l.includes('"job done"') && l.includes(posted.body.id), 10_000)
    // `npm run dev` shows the outcome as one short line (local/job-lines.ts), read from these very lines.
    expect(output.map(jobOutcomeLine)).toContainEqual(
      expect.stringMatching(new RegExp(`^\\[job\\] ${posted.body.id} on orders done, \\d+ ms after its due time`)),
    )
  }, 60_000)

  it('sends a job for another target to that target queue, with the message contract', async () => {
    const posted = await postJob({ queue: 'emails', payload: { to: 'a@example.com' }, delayMs: 0 })
    expect(posted.status).toBe(201)

    const client = sqs()
    const deadline = Date.now() + 30_000
    let message: Message | undefined
    while (!message && Date.now() < deadline) {
      const out = await client.send(
        new ReceiveMessageCommand({
          QueueUrl: dev.stack.queues.emails,
          WaitTimeSeconds: 1,
          MessageAttributeNames: ['All'],
        }),
      )
      message = out.Messages?.find((m) => JSON.parse(m.Body!).id === posted.body.id)
    }
    client.destroy()

    expect(message).toBeDefined()
    expect(JSON.parse(message!.Body!)).toMatchObject({
      id: posted.body.id,
      queue: 'emails',
      payload: { to: 'a@example.com' },
    })
    expect(message!.MessageAttributes?.jobId?.StringValue).toBe(posted.body.id)
  }, 60_000)

  it('answers a path whose percent-encoding does not decode with our 400 body, as the deployed API does', async () => {
    for (const [method, path] of [
      ['GET', '/jobs/%'],
      ['GET', '/jobs/%ZZ'],
      ['DELETE', '/jobs/%C0%AF'],
      ['GET', '/schedules/a%ZZ'],
    ] as const) {
      // act
      const res = await fetch(`${dev.stack.apiUrl}${path}`, { method })
      // assess: the api function's answer, not serverless-offline's
      expect({ method, path, status: res.status }).toEqual({ method, path, status: 400 })
      expect(await res.json()).toEqual({
        error: {
          code: 'ValidationError',
          message: expect.stringContaining('id'),
          details: [{ path: 'id', message: 'is not a valid URL-encoded path segment' }],
        },
      })
    }
  })

  it('listens on loopback only: another host is refused on every port of the stack', async (ctx) => {
    const host = other.host(ctx)
    const { apiUrl, lambdaUrl, sqsEndpoint, dashboardUrl } = dev.stack
    for (const url of [apiUrl, lambdaUrl, sqsEndpoint, dashboardUrl]) {
      // act
      const fromOther = await host.connectFrom(host.hostAddress, Number(new URL(url).port))
      // assess
      expect({ url, fromOther }).toEqual({ url, fromOther: 'refused' })
      expect(await listeningAt(url)).toBe(true)
    }
  })

  it('stops every process it started', async () => {
    const { apiUrl, lambdaUrl, sqsEndpoint, dashboardUrl } = dev.stack
    // (the file's afterAll stops it again: a stopped stack's stop does nothing)
    await dev.stack.stop()
    for (const url of [apiUrl, lambdaUrl, sqsEndpoint, dashboardUrl]) expect(await listeningAt(url)).toBe(false)
  }, 60_000)
})
