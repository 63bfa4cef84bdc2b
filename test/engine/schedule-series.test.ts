// Recurring schedules through the scanner, to a real SQS endpoint: each dispatch creates the next occurrence
// atomically with its ack, so a series fires on time, stops when told, and survives a scanner dying mid-dispatch.
import { sleep } from '../../devkit/sleep'
import { afterAll, describe, expect, it } from 'vitest'
import { Leases } from '../../src/scan/claims/leases'
import { Dispatcher } from '../../src/scan/dispatch/dispatcher'
import { createSqsClient } from '../../src/sqs/sqs-client'
import { eventually } from '../support/eventually'
import { pendingCount } from '../support/scanner'
import { occurrencesOf } from '../support/schedules'
import { describeSeries, seriesFaults } from '../support/series-gaps'
import { RECEIPT_TTL_MS, seriesStage, wholeSecond } from '../support/series-stage'
import { sqsClient } from '../support/sqs'
import { inject } from 'vitest'

const sqs = sqsClient()
afterAll(() => sqs.destroy())

// The tests of this file run side by side (each its own key prefix and queues): they wait on real time, not the CPU.
describe.concurrent('recurring schedules (series)', () => {
  it('fires a 1 s schedule 5 times in about 5 s, each occurrence on time', async () => {
    // prepare
    const stage = await seriesStage(sqs, 'every-second')
    const start = wholeSecond()
    const late = new Map<string, number>()
    const s = stage.scanner({ onSent: (job, _at, lateMs) => late.set(job.id, lateMs) })
    await stage.everySecond('tick', start, { payload: { n: 1 } })
    // act
    await s.runUntil(async () => (await stage.runs('tick')) >= 5, 15_000)
    await stage.q.deleteSchedule('tick')
    // assess: occurrences start, start+1 s, ... each sent once, with scheduleId / occurrenceAt in the envelope
    const got = (await stage.received()).sort((a, b) => a.id.localeCompare(b.id))
    const expected = [0, 1, 2, 3, 4].map((k) => start + k * 1000)
    expect(got.map((b) => b.id)).toEqual(expected.map((ms) => `tick@${ms}`))
    expect(got.map((b) => b.occurrenceAt)).toEqual(expected.map((ms) => new Date(ms).toISOString()))
    expect(got.every((b) => b.scheduleId === 'tick' && b.runAt === b.occurrenceAt)).toBe(true)
    const lateness = expected.map((ms) => late.get(`tick@${ms}`)!)
    console.log(`1 s schedule, lateness per occurrence (ms, Redis clock): ${lateness.join(', ')}`)
    // On time: each left before the next was due (the precision figures are the bench's, not a test's).
    expect(lateness.every((ms) => ms >= 0 && ms < 1000)).toBe(true)
    expect(await pendingCount(stage.t.store)).toBe(0)
    await stage.close()
  })

  it('stops after endAt: the last occurrence creates no successor and nothing stays pending', async () => {
    // prepare
    const stage = await seriesStage(sqs, 'ending')
    const start = wholeSecond()
    await stage.everySecond('short', start, { endAt: start + 2_500 })
    // act
    await stage.scanner().runUntil(async () => (await stage.q.getSchedule('short'))?.nextRunAt === null, 10_000)
    // assess
    expect((await stage.received()).map((b) => b.id).sort()).toEqual([0, 1, 2].map((k) => `short@${start + k * 1000}`))
    expect(await stage.q.getSchedule('short')).toMatchObject({
      runs: 3,
      nextRunAt: null,
      lastRunAt: new Date(start + 2000).toISOString(),
    })
    expect(await pendingCount(stage.t.store)).toBe(0)
    await stage.close()
  })

  it('never loses nor doubles the series when a scanner dies between dispatch and ack', async () => {
    // prepare: a scanner leases the first occurrence (short lease), sends it to SQS, and dies before its ack
    const stage = await seriesStage(sqs, 'killed', { shards: 1 })
    const { t, queue, q } = stage
    const start = wholeSecond()
    await stage.everySecond('sturdy', start)
    const shard = t.keys.shards[0]!
    const dying = new Leases(t.redis, { leaseMs: 400, maxAttempts: 10, backoffBaseMs: 10, backoffMaxMs: 10 }, t.keys)
    await eventually(async () => Date.now() >= start)
    const claimed = await dying.claim(shard, await dying.seedHints(shard, 10), 10)
    expect(claimed.jobs.map((j) => j.id)).toEqual([`sturdy@${start}`])
    const sqsOfDying = createSqsClient({ region: 'us-east-1', sqsEndpoint: inject('sqsEndpoint'), sendConcurrency: 1 })
    const dispatcher = new Dispatcher({
      sqs: sqsOfDying,
      queues: { orders: queue.url },
      concurrency: 1,
      maxBatchBytes: 1_048_576,
      maxSendMs: 300,
    })
    expect((await dispatcher.dispatch(claimed.jobs)).sent).toHaveLength(1)
    sqsOfDying.destroy()
    // act: a healthy scanner takes over once the lease expires; later the dead one's ack arrives, stale
    await stage
      .scanner({ receiptTtlMs: RECEIPT_TTL_MS })
      .runUntil(async () => (await stage.runs('sturdy')) >= 3, 10_000)
    const staleAck = await dying.ack(shard, claimed.jobs)
    await q.pauseSchedule('sturdy')
    // assess: the first occurrence went out twice (at least once), the series went on, one job per time. The
    // takeover waits for the lease, so on a loaded machine the first ack can come after start + 1 s: that time is
    // then left out as a missed occurrence (docs/schedules.md); a time still ahead at its predecessor's ack never is.
    const sent = await stage.received()
    const ids = sent.map((b) => b.id)
    const runs = await stage.runs('sturdy')
    const steps = await stage.steps([...new Map(sent.map((b) => [b.id, b])).values()])
    const series = `runs ${runs}, messages:\n${describeSeries(start, steps)}`
    expect(steps[0]?.id, series).toBe(`sturdy@${start}`)
    expect(
      steps.map((x) => x.id),
      series,
    ).toEqual(steps.map((x) => `sturdy@${x.atMs}`))
    expect(steps, series).toHaveLength(runs)
    expect(seriesFaults(steps, 1000), series).toEqual([])
    expect(ids.filter((id) => id === `sturdy@${start}`)).toHaveLength(2)
    expect(ids.length).toBe(runs + 1)
    expect(staleAck).toBe(0)
    expect(await occurrencesOf(t, 'sturdy')).toEqual([])
    await stage.close()
  })

  it('fires the occurrences missed during an outage once, then carries on from now', async () => {
    // prepare: the schedule's first occurrence comes and 3 more pass with no scanner running
    const stage = await seriesStage(sqs, 'outage')
    const start = wholeSecond()
    await stage.everySecond('missed', start)
    await eventually(async () => Date.now() >= start + 3_500)
    // act
    await stage.scanner().runUntil(async () => (await stage.runs('missed')) >= 2, 10_000)
    await stage.q.deleteSchedule('missed')
    // assess: the overdue occurrence once, then the first one after the outage (start + 4 s), none in between
    const ids = (await stage.received()).map((b) => b.id).sort()
    expect(ids).toEqual([`missed@${start}`, `missed@${start + 4_000}`])
    await stage.close()
  })

  it('delete and pause stop a running series: nothing pending, nothing sent afterwards', async () => {
    // prepare
    const stage = await seriesStage(sqs, 'stopping')
    const { t, q } = stage
    const start = wholeSecond()
    await stage.everySecond('del', start)
    await stage.everySecond('pau', start)
    const run = stage.scanner().runUntil(() => false, 4_500)
    // act: after two runs each
    await eventually(async () => (await stage.runs('del')) >= 2 && (await stage.runs('pau')) >= 2)
    await q.deleteSchedule('del')
    await q.pauseSchedule('pau')
    await sleep(300) // an occurrence already being sent may still go out: let it
    const sentBefore = await stage.received()
    await run // the scanner keeps running for 2 s more
    // assess
    expect(sentBefore.length).toBeGreaterThanOrEqual(4)
    expect(await occurrencesOf(t, 'del')).toEqual([])
    expect(await occurrencesOf(t, 'pau')).toEqual([])
    expect(await pendingCount(t.store)).toBe(0)
    expect(await stage.received()).toEqual([])
    expect(await stage.runs('pau')).toBe(sentBefore.filter((b) => b.scheduleId === 'pau').length)
    await stage.close()
  })
})
