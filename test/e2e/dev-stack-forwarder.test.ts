// `npm run dev` runs the HTTP forwarder too: a job posted to the `webhooks` target queue reaches a receiver on loopback
// (allowed by the local-only setting), signed with the local secret and verified by the `standardwebhooks` package,
// and its lookup shows what the call got.
import { randomBytes } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { devStackForFile } from '../support/dev-stack'
import { uniquePrefix } from '../support/engine'
import { eventually } from '../support/eventually'
import { startReceiver, type Receiver } from '../http-target/receiver'

const secret = `whsec_${randomBytes(32).toString('base64')}`
const dev = devStackForFile({
  env: { KEY_PREFIX: uniquePrefix('e2e-http'), HTTP_ALLOW_LOOPBACK: 'true', WEBHOOK_SECRETS: secret },
})
let receiver: Receiver
beforeAll(async () => {
  receiver = await startReceiver(secret)
})
afterAll(() => receiver?.close())

describe('npm run dev: the HTTP forwarder', () => {
  it('delivers a job of the webhooks queue to a loopback receiver, signed, and records the answer', {
    timeout: 90_000,
  }, async () => {
    // prepare
    const id = `hook-${randomBytes(4).toString('hex')}`
    // act
    const res = await fetch(`${dev.stack.apiUrl}/jobs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ queue: 'webhooks', id, payload: { url: `${receiver.url}/ok`, body: { hello: 'world' } } }),
    })
    expect(res.status).toBe(201)
    await eventually(() => receiver.successes.get(id) === 1, 60_000)
    // assess
    expect(receiver.badSignatures).toBe(0)
    expect(JSON.parse(receiver.deliveries.find((d) => d.id === id)!.body)).toEqual({ hello: 'world' })
    let view: Record<string, any> = {}
    await eventually(async () => {
      view = (await (await fetch(`${dev.stack.apiUrl}/jobs/${id}`)).json()) as Record<string, any>
      return view.delivery?.outcome === 'delivered'
    }, 20_000)
    expect(view.delivery).toMatchObject({ status: 200, attempts: 1, excerpt: `ok ${id}` })
  })
})
