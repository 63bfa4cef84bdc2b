// A client lane for recurring schedules, through the real signed API client: create (everyMs from an explicit
// startAt, so the checker knows the series from the request), then over a while pause / resume / replace, and at the
// end delete. A delete whose answer was lost is sent again until it is answered: no schedule may outlive the run.
import { sleep } from '../../devkit/sleep'
import type { Op } from './history'
import type { LaneContext } from './job-lanes'

export async function scheduleLane(lane: string, ctx: LaneContext): Promise<void> {
  for (let k = 0; ctx.running(); k++) {
    const sid = `${lane}.${k}`
    let version = 0
    const put = async () => {
      const token = `t-${sid}.v${++version}`
      const everyMs = ctx.random.int(1_000, 2_000)
      const startAtMs = Date.now() + ctx.random.int(500, 1_500)
      const input = { queue: 'orders', payload: { t: token }, everyMs, startAt: startAtMs }
      return ctx.recorder.record(
        { client: lane, kind: 'sched-put', id: sid, token, everyMs, startAtMs },
        () => ctx.client.putSchedule(sid, input),
        (a, op) => {
          op.status = a.created ? 201 : 200
        },
      )
    }
    await put()
    const until = Date.now() + ctx.random.int(8_000, 20_000)
    let paused = false
    while (ctx.running() && Date.now() < until) {
      await sleep(ctx.random.int(2_000, 5_000))
      if (!ctx.running()) break
      if (paused || ctx.random.chance(0.25)) {
        const kind = paused ? 'sched-resume' : 'sched-pause'
        const op = await ctx.recorder.record(
          { client: lane, kind, id: sid },
          () => ctx.client.pauseSchedule(sid, !paused),
          (_, o) => {
            o.status = 200
          },
        )
        if (op.outcome === 'ok') paused = !paused
      } else if (ctx.random.chance(0.35)) {
        const op = await put()
        if (op.outcome === 'ok') paused = false
      }
    }
    await deleteUntilAnswered(lane, sid, ctx)
  }
}

async function deleteUntilAnswered(lane: string, sid: string, ctx: LaneContext): Promise<void> {
  for (let attempt = 0; attempt < 60; attempt++) {
    const op: Op = await ctx.recorder.record(
      { client: lane, kind: 'sched-delete', id: sid },
      () => ctx.client.deleteSchedule(sid),
      (_, o) => {
        o.status = 204
      },
    )
    if (op.outcome !== 'unknown') return
    await sleep(500)
  }
}
