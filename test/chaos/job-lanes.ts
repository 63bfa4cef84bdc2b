// Client lanes that do what users do with one-off jobs, through the real signed API client: create with and without
// an id, in batches, by PUT; then maybe reschedule and maybe cancel, some of them around the due time (the dispatch
// race). A create whose answer was lost is retried once by the "user" with the same id and the same Idempotency-Key (a
// replayed answer, or a 409 showing the job it sent, is its success). Each job id belongs to one lane, so its
// operations form a sequence. Every write goes through the client's own retries, each call with its Idempotency-Key.
import { sleep } from '../../devkit/sleep'
import { DelayQueueApiClient } from '../../src/api-client'
import { newIdempotencyKey } from '../../src/api-client/idempotency-key'
import type { Op } from './history'
import type { Random } from './random'
import { outcomeOf, type Recorder } from './recorder'

/** A signed API client; `onRequest` hears of every HTTP request it makes (retries included). */
export function apiClient(url: string, onRequest: () => void = () => undefined): DelayQueueApiClient {
  return new DelayQueueApiClient({
    url,
    fetch: (input, init) => {
      onRequest()
      return globalThis.fetch(input, init)
    },
    region: 'us-east-1',
    credentials: { accessKeyId: 'chaos', secretAccessKey: 'chaos' },
    timeoutMs: 5_000,
    retry: { attempts: 4, baseDelayMs: 100, maxDelayMs: 1_000 },
  })
}

export interface LaneContext {
  client: DelayQueueApiClient
  recorder: Recorder
  random: Random
  running: () => boolean
}

export async function jobLane(lane: string, ctx: LaneContext): Promise<void> {
  for (let k = 0; ctx.running(); k++) {
    const scenario = ctx.random.pick(['post', 'post', 'post-no-id', 'batch', 'put'] as const)
    const base = `${lane}.${k}`
    if (scenario === 'batch') await batch(base, ctx)
    else {
      const create = await single(scenario, base, ctx)
      if (create.outcome !== 'fail' && !create.id.startsWith('?')) await followUps(create, ctx)
    }
    await sleep(ctx.random.int(20, 200))
  }
}

async function single(via: 'post' | 'post-no-id' | 'put', base: string, ctx: LaneContext): Promise<Op> {
  const { client, recorder, random } = ctx
  const token = `t-${base}`
  const delayMs = random.int(200, 5_000)
  const input = { queue: 'orders', payload: { t: token }, delayMs }
  const shape = { client: base.split('.')[0]!, kind: 'create' as const, via, token, delayMs }
  if (via === 'put') {
    return recorder.record(
      { ...shape, id: base },
      () => client.reschedule(base, input),
      (a, op) => {
        op.status = a.created ? 201 : 200
        op.answerRunAtMs = Date.parse(a.runAt)
      },
    )
  }
  const id = via === 'post' ? base : `?${token}`
  // The user's retry below is the same write: it sends the same key (a job dispatched meanwhile is not created again).
  const idempotencyKey = newIdempotencyKey()
  const send = () => (via === 'post' ? client.schedule({ ...input, id }, { idempotencyKey }) : client.schedule(input))
  const onOk = (a: { id: string; runAt: string }, op: Op) => {
    op.id = a.id
    op.status = 201
    op.answerRunAtMs = Date.parse(a.runAt)
  }
  const first = await recorder.record({ ...shape, id }, send, onOk)
  if (first.outcome !== 'unknown' || via !== 'post') return first
  // The user's retry, with the same id and key: the API answers it as the first attempt if that one was applied.
  return recorder.record({ ...shape, id, retryOf: first.n }, send, onOk)
}

async function followUps(create: Op, ctx: LaneContext): Promise<void> {
  const { client, recorder, random } = ctx
  const id = create.id
  if (random.chance(0.35) && ctx.running()) {
    await sleep(random.int(0, 2_500))
    const token = `${create.token}.r`
    const delayMs = random.int(200, 4_000)
    await recorder.record(
      { client: create.client, kind: 'put', via: 'put', id, token, delayMs },
      () => client.reschedule(id, { queue: 'orders', payload: { t: token }, delayMs }),
      (a, op) => {
        op.status = a.created ? 201 : 200
        op.answerRunAtMs = Date.parse(a.runAt)
      },
    )
  }
  if (random.chance(0.4) && ctx.running()) {
    // Some before the due time, some right around it (the cancel races the dispatch).
    await sleep(random.chance(0.5) ? random.int(0, 500) : Math.max(0, (create.delayMs ?? 0) + random.int(-300, 300)))
    await recorder.record(
      { client: create.client, kind: 'cancel', id },
      () => client.cancel(id),
      (_, op) => {
        op.status = 204
      },
    )
  }
}

async function batch(base: string, ctx: LaneContext): Promise<void> {
  const now = Date.now()
  const jobs = Array.from({ length: ctx.random.int(2, 8) }, (_, i) => ({
    id: `${base}.${i}`,
    queue: 'orders',
    payload: { t: `t-${base}.${i}` },
    runAt: now + ctx.random.int(300, 5_000),
  }))
  await recordBatch(base.split('.')[0]!, ctx, jobs)
}

export interface BatchJob {
  id: string
  queue: string
  payload: { t: string }
  runAt: number
  groupId?: string
  flowKey?: string
}

/** POST /jobs/batch, each job recorded as its own create (its outcome from its own entry of the answer). */
export async function recordBatch(client: string, ctx: LaneContext, jobs: BatchJob[]): Promise<void> {
  const { recorder } = ctx
  const invokeAt = Date.now()
  const ops: Op[] = jobs.map((j) => ({
    n: 0,
    client,
    kind: 'create',
    via: 'batch',
    id: j.id,
    token: j.payload.t,
    runAtMs: j.runAt,
    ...(j.groupId ? { groupId: j.groupId } : {}),
    ...(j.flowKey ? { flowKey: j.flowKey } : {}),
    invokeAt,
    completeAt: 0,
    outcome: 'unknown',
  }))
  try {
    const results = await ctx.client.scheduleMany(jobs)
    results.forEach((r, i) => {
      const op = ops[i]!
      if ('status' in r) {
        op.outcome = 'ok'
        op.status = 200
      } else if (['ValidationError', 'Conflict', 'PayloadTooLarge', 'NotFound'].includes(r.error.code)) {
        op.outcome = 'fail'
        op.code = r.error.code
      } else op.code = r.error.code // still refused for a passing reason after the client's retries: indeterminate
    })
  } catch (e) {
    const { outcome, status, code } = outcomeOf(e)
    for (const op of ops) Object.assign(op, { outcome, status, code })
  }
  const completeAt = Date.now()
  for (const op of ops) recorder.push({ ...op, invokeAt, completeAt })
}
