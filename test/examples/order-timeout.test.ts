// Seed: an order not paid within 15 minutes is closed; paying cancels the job. Run with a 400 ms window.
import { sleep } from '../../devkit/sleep'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { closeJobId, payOrder, placeOrder } from '../../examples/order-timeout/app'
import { closeUnpaidOrderHandler } from '../../examples/order-timeout/handler'
import { Orders } from '../../examples/order-timeout/orders'
import { eventually, silentLogger, startPipeline } from '../support/pipeline'

const WINDOW_MS = 400
const orders = new Orders()
let pipeline: Awaited<ReturnType<typeof startPipeline>>

beforeAll(async () => {
  pipeline = await startPipeline('orders', (sqs) => closeUnpaidOrderHandler(orders, { sqs, logger: silentLogger() }))
})
afterAll(() => pipeline.stop())

describe('example: close unpaid orders', () => {
  it('closes the order nobody paid, and leaves the paid one alone', async () => {
    // prepare
    const placedAt = Date.now()
    await placeOrder(pipeline.queue, orders, 'A-1', WINDOW_MS)
    await placeOrder(pipeline.queue, orders, 'B-2', WINDOW_MS)
    // act: B is paid within the window
    expect(await payOrder(pipeline.queue, orders, 'B-2')).toBe(true)
    await eventually(() => orders.get('A-1')!.status === 'closed')
    // assess
    expect(orders.get('A-1')!.closedAt! - placedAt).toBeGreaterThanOrEqual(WINDOW_MS)
    expect(orders.get('B-2')!.status).toBe('paid')
    expect(await pipeline.queue.get(closeJobId('B-2')).catch(() => null)).toBeNull()
  })

  it('cannot schedule a second close job for the same order', async () => {
    await placeOrder(pipeline.queue, orders, 'C-3', 60_000)
    await expect(placeOrder(pipeline.queue, orders, 'C-3', 60_000)).rejects.toMatchObject({ code: 'Conflict' })
    await payOrder(pipeline.queue, orders, 'C-3')
  })

  it('does not close an order paid after its close job was already on its way', async () => {
    // prepare: the job goes out right away; the payment lands before the handler runs or after it
    await placeOrder(pipeline.queue, orders, 'D-4', 0)
    const paid = await payOrder(pipeline.queue, orders, 'D-4')
    await eventually(async () => (await pipeline.store.get(closeJobId('D-4'))) === null)
    await sleep(200)
    // assess: whichever won, the order is in exactly one final state that matches who won
    expect(orders.get('D-4')!.status).toBe(paid ? 'paid' : 'closed')
  })
})
