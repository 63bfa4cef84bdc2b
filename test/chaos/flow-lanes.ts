// A client lane for flow control (docs/flow-control.md): jobs of a flow key limited to a rate, in bursts larger than
// the rate lets through at once, and jobs of another flow key that an operator pauses and resumes while they fall
// due. The checker (test/chaos/check-flow.ts) holds the first key to its rate and the second to its pauses; the jobs
// are ordinary creates, held to every other promise too (delivered once acknowledged, never early).
import { sleep } from '../../devkit/sleep'
import type { FlowOp } from './history'
import { type LaneContext, recordBatch } from './job-lanes'
import { outcomeOf } from './recorder'

/** The limited key's rate: low enough that the lane's bursts queue behind it. */
export const RATED = { flowKey: 'chaos-rated', rate: 20, burst: 4 }
export const PAUSED_KEY = 'chaos-paused'

export async function flowLane(lane: string, ctx: LaneContext, flow: FlowOp[]): Promise<void> {
  const { random } = ctx
  const operator = (op: Omit<FlowOp, 'invokeAt' | 'completeAt' | 'outcome'>) => recordFlow(ctx, flow, op)
  await operator({ kind: 'rate', flowKey: RATED.flowKey, rate: RATED.rate, burst: RATED.burst })
  let paused = false // as the lane asked last; the end resumes whatever the answers were
  for (let k = 0; ctx.running(); k++) {
    const base = `${lane}.${k}`
    const now = Date.now()
    const rated = Array.from({ length: random.int(5, 15) }, (_, i) => ({
      id: `${base}.r${i}`,
      queue: 'orders',
      payload: { t: `t-${base}.r${i}` },
      runAt: now + random.int(300, 1_500),
      flowKey: RATED.flowKey,
    }))
    const held = Array.from({ length: random.int(2, 5) }, (_, i) => ({
      id: `${base}.p${i}`,
      queue: 'orders',
      payload: { t: `t-${base}.p${i}` },
      runAt: now + random.int(300, 3_000),
      flowKey: PAUSED_KEY,
    }))
    await recordBatch(lane, ctx, [...rated, ...held])
    if (random.chance(0.3)) {
      await operator({ kind: paused ? 'resume' : 'pause', flowKey: PAUSED_KEY })
      paused = !paused
    }
    await sleep(random.int(300, 1_200))
  }
  // The run drains after the lanes: held jobs must be able to leave, whatever the calls above answered (a resume is
  // idempotent: sent until one is answered).
  for (let tries = 0; tries < 20; tries++) {
    await operator({ kind: 'resume', flowKey: PAUSED_KEY })
    if (flow.at(-1)!.outcome === 'ok') return
    await sleep(1_000)
  }
}

/** One operator call through the API client, recorded with its outcome (a lost answer leaves it indeterminate). */
async function recordFlow(
  ctx: LaneContext,
  flow: FlowOp[],
  op: Omit<FlowOp, 'invokeAt' | 'completeAt' | 'outcome'>,
): Promise<void> {
  const entry: FlowOp = { ...op, invokeAt: Date.now(), completeAt: 0, outcome: 'unknown' }
  flow.push(entry)
  const target = { flowKey: op.flowKey }
  try {
    if (op.kind === 'pause') await ctx.client.flow.pause(target)
    else if (op.kind === 'resume') await ctx.client.flow.resume(target)
    else await ctx.client.flow.setRate(target, { rate: op.rate!, ...(op.burst ? { burst: op.burst } : {}) })
    entry.outcome = 'ok'
  } catch (e) {
    entry.outcome = outcomeOf(e).outcome
  }
  entry.completeAt = Date.now()
}
