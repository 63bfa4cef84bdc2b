// A client lane for the FIFO target: batches of jobs of one message group, due a few hundred milliseconds apart (and
// some in the same millisecond), into a few groups the lane reuses, so that a group's jobs come from many batches,
// spread over every shard by their ids. The checker (test/chaos/check-fifo.ts) holds each group to due-time order.
import { sleep } from '../../devkit/sleep'
import type { LaneContext } from './job-lanes'
import { recordBatch } from './job-lanes'

/** The FIFO target's queue name (QUEUES): a name ending in .fifo makes the engine send with a group. */
export const FIFO_QUEUE = 'orders.fifo'

/** Groups a lane writes to, in turn. */
const GROUPS = 3

export async function fifoLane(lane: string, ctx: LaneContext): Promise<void> {
  const { random } = ctx
  for (let k = 0; ctx.running(); k++) {
    const groupId = `${lane}-g${k % GROUPS}`
    const base = `${lane}.${k}`
    let runAt = Date.now() + random.int(300, 2_000)
    const jobs = Array.from({ length: random.int(2, 6) }, (_, i) => {
      // One in five shares the previous job's millisecond: ties have no required order, but must still go.
      if (i > 0 && !random.chance(0.2)) runAt += random.int(20, 600)
      return { id: `${base}.${i}`, queue: FIFO_QUEUE, payload: { t: `t-${base}.${i}` }, runAt, groupId }
    })
    await recordBatch(lane, ctx, jobs)
    await sleep(random.int(100, 600))
  }
}
