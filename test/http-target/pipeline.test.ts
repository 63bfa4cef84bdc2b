// An HTTP job from the API to the receiver and back: POST /jobs on an HTTP target queue, the scanner hands it to SQS,
// the forwarder calls the URL, GET /jobs/{id} shows the dispatch receipt with what the call got, and the job's
// success or failure callback arrives as a signed HTTP job of its own.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { bodyOf, request, testApi } from '../api/api-helpers'
import { eventually } from '../support/eventually'
import { startKit, TARGET, type Kit } from './forwarder-kit'

let kit: Kit
let api: ReturnType<typeof testApi>
beforeAll(async () => {
  kit = await startKit()
  kit.poll(1)
  kit.scan()
  api = testApi({}, kit.engine)
})
afterAll(() => kit?.close())

const post = (payload: unknown, id: string) =>
  api.call(request('POST', '/jobs', { body: { queue: TARGET, id, payload } }))
const arrived = (id: string) => kit.receiver.deliveries.filter((d) => d.id === id)

describe('an HTTP job through the whole queue', () => {
  it('is delivered, its receipt shows the answer, and its success callback arrives signed', async () => {
    // prepare
    const payload = {
      url: `${kit.receiver.url}/ok`,
      body: { orderId: 42 },
      callbacks: { success: `${kit.receiver.url}/ok?callback=success` },
    }
    // act
    expect((await post(payload, 'order-42')).statusCode).toBe(201)
    await eventually(() => arrived('order-42:cb-success').length === 1, 20_000)
    // assess
    expect(JSON.parse(arrived('order-42')[0]!.body)).toEqual({ orderId: 42 })
    const view = await api.call(request('GET', '/jobs/order-42'))
    expect(bodyOf(view)).toMatchObject({
      status: 'dispatched',
      delivery: { outcome: 'delivered', status: 200, attempts: 1, excerpt: 'ok order-42' },
    })
    expect(JSON.parse(arrived('order-42:cb-success')[0]!.body)).toEqual({
      type: 'delayqueue.job.succeeded',
      jobId: 'order-42',
      queue: TARGET,
      outcome: 'delivered',
      status: 200,
      attempts: 1,
      excerpt: 'ok order-42',
    })
    expect(kit.receiver.badSignatures).toBe(0)
  })

  it('sends the failure callback when the call ends in the DLQ', async () => {
    // prepare
    const payload = {
      url: `${kit.receiver.url}/bad`,
      callbacks: { failure: `${kit.receiver.url}/ok?callback=failure` },
    }
    // act
    expect((await post(payload, 'order-43')).statusCode).toBe(201)
    await eventually(() => arrived('order-43:cb-failure').length === 1, 20_000)
    // assess
    expect(JSON.parse(arrived('order-43:cb-failure')[0]!.body)).toMatchObject({
      type: 'delayqueue.job.failed',
      jobId: 'order-43',
      outcome: 'dead-lettered',
      status: 400,
      attempts: 1,
      reason: 'answered 400',
    })
    expect(bodyOf(await api.call(request('GET', '/jobs/order-43')))).toMatchObject({
      delivery: { outcome: 'dead-lettered', status: 400 },
    })
  })
})
