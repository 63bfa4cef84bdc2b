// Client lanes for tags and debounce, through the real signed API client. A tag lane creates a few jobs of one
// "order" (a tag of their own, due 0.5-5 s later) and then cancels them all by tag, some right away, some around
// their due times (the race with the dispatch). A debounce lane writes one id again and again with onConflict
// debounce (period 600 ms, maxWait 2 s) at gaps mostly shorter than the period, now and then a quiet one longer.
import { sleep } from '../../devkit/sleep'
import { newIdempotencyKey } from '../../src/api-client/idempotency-key'
import type { LaneContext } from './job-lanes'
export const DEBOUNCE_PERIOD_MS = 600
export const DEBOUNCE_MAX_WAIT_MS = 2_000

export async function tagLane(lane: string, ctx: LaneContext): Promise<void> {
  const { client, recorder, random } = ctx
  for (let k = 0; ctx.running(); k++) {
    const tag = `order:${lane}.${k}`
    const delays: number[] = []
    for (let i = 0; i < random.int(2, 5) && ctx.running(); i++) {
      const id = `${lane}.${k}.${i}`
      const token = `t-${id}`
      const delayMs = random.int(500, 5_000)
      delays.push(delayMs)
      const input = { id, queue: 'orders', payload: { t: token }, delayMs, tags: [tag] }
      const idempotencyKey = newIdempotencyKey()
      await recorder.record(
        { client: lane, kind: 'create', via: 'post', id, token, delayMs, tags: [tag] },
        () => client.schedule(input, { idempotencyKey }),
        (a, op) => {
          op.status = 201
          op.answerRunAtMs = Date.parse(a.runAt)
        },
      )
    }
    if (!delays.length) return
    // Right away, or around one of the due times.
    await sleep(random.chance(0.3) ? random.int(0, 300) : Math.max(0, random.pick(delays) + random.int(-300, 300)))
    await recorder.record(
      { client: lane, kind: 'tag-cancel', id: tag },
      () => client.cancelByTag(tag),
      (a, op) => {
        op.status = 200
        op.cancelled = a.cancelled
        op.inFlight = a.inFlight
      },
    )
    await sleep(random.int(20, 200))
  }
}

export async function debounceLane(lane: string, ctx: LaneContext): Promise<void> {
  const { client, recorder, random } = ctx
  for (let k = 0; ctx.running(); k++) {
    const id = `${lane}.digest`
    const token = `t-${lane}.${k}`
    const input = {
      id,
      queue: 'orders',
      payload: { t: token },
      delayMs: DEBOUNCE_PERIOD_MS,
      onConflict: 'debounce' as const,
      maxWaitMs: DEBOUNCE_MAX_WAIT_MS,
    }
    const idempotencyKey = newIdempotencyKey()
    await recorder.record(
      {
        client: lane,
        kind: 'put',
        via: 'debounce',
        id,
        token,
        delayMs: DEBOUNCE_PERIOD_MS,
        maxWaitMs: DEBOUNCE_MAX_WAIT_MS,
      },
      () => client.schedule(input, { idempotencyKey }),
      (a, op) => {
        op.status = a.replaced ? 200 : 201
        op.answerRunAtMs = Date.parse(a.runAt)
      },
    )
    await sleep(random.chance(0.85) ? random.int(50, 400) : random.int(900, 1_500))
  }
}
