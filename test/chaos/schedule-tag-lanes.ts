// A client lane for recurring schedules with tags, through the real signed API client: each round creates 1-3
// schedules of one "plan" (a tag of their own; everyMs 1-1.5 s from an explicit startAt, so several occurrences fall
// in the round), now and then replaces one (keeping the tag), and after 1.5-5 s deletes them all with
// DELETE /schedules?tag= while the faults go on. A delete whose answer was lost is sent again until it is answered: no
// schedule may outlive the run.
import { sleep } from '../../devkit/sleep'
import type { LaneContext } from './job-lanes'

export async function scheduleTagLane(lane: string, ctx: LaneContext): Promise<void> {
  const { client, recorder, random } = ctx
  for (let k = 0; ctx.running(); k++) {
    const tag = `plan:${lane}.${k}`
    const sids: string[] = []
    let version = 0
    const put = (sid: string) => {
      const token = `t-${sid}.v${++version}`
      const everyMs = random.int(1_000, 1_500) // the shortest everyMs the API takes: 1 s
      const startAtMs = Date.now() + random.int(200, 800)
      const input = { queue: 'orders', payload: { t: token }, everyMs, startAt: startAtMs, tags: [tag] }
      return recorder.record(
        { client: lane, kind: 'sched-put', id: sid, token, everyMs, startAtMs, tags: [tag] },
        () => client.putSchedule(sid, input),
        (a, op) => {
          op.status = a.created ? 201 : 200
        },
      )
    }
    const count = random.int(1, 3)
    for (let i = 0; i < count && ctx.running(); i++) {
      sids.push(`${lane}.${k}.${i}`)
      await put(sids.at(-1)!)
    }
    if (!sids.length) return
    // At the run's end the schedules go at once: the lanes' end is when the writes stop.
    if (ctx.running()) await sleep(random.int(1_500, 3_000))
    if (ctx.running() && random.chance(0.3)) await put(random.pick(sids))
    if (ctx.running()) await sleep(random.int(0, 2_000))
    await deleteByTagUntilAnswered(lane, tag, ctx)
    await sleep(random.int(20, 200))
  }
}

async function deleteByTagUntilAnswered(lane: string, tag: string, ctx: LaneContext): Promise<void> {
  for (let attempt = 0; attempt < 60; attempt++) {
    const op = await ctx.recorder.record(
      { client: lane, kind: 'sched-tag-delete', id: tag },
      () => ctx.client.deleteSchedulesByTag(tag),
      (a, o) => {
        o.status = 200
        o.deleted = a.deleted
        o.done = a.done
      },
    )
    if (op.outcome !== 'unknown') return
    await sleep(500)
  }
}
