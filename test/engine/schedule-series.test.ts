// Recurring schedules through the scanner, to a real SQS endpoint: each dispatch creates the next occurrence
// atomically with its ack, so a series fires on time, stops when told, and survives a scanner dying mid-dispatch.
import { afterAll, describe, expect, it } from 'vitest'
import { Leases } from '../../src/scan/leases'
import { Dispatcher } from '../../src/scan/dispatcher'
import { createSqsClient } from '../../src/sqs/client'
import { testStore } from '../support/engine'
import { eventually } from '../support/eventually'
import { pendingCount, testScanner } from '../support/scanner'
import { occurrencesOf, testQueue } from '../support/schedules'
import { createQueue, receiveAll, sqsClient } from '../support/sqs'
import { inject } from 'vitest'

const sqs = sqsClient()
afterAll(() => sqs.destroy())

type Body = { id: string; scheduleId: string; occurrenceAt: string; runAt: string; payload: unknown }
const bodies = (messages: { Body?: string }[]) => messages.map((m) => JSON.parse(m.Body!) as Body)
/** The next whole second at least `leadMs` away: occurrence times easy to read in failures. */
const wholeSecond = (leadMs: number) => Math.ceil((Date.now() + leadMs) / 1000) * 1000

/** A store, a target queue ("orders") on the SQS endpoint, and a DelayQueue sending to it. */
async function seriesStage(queueName: string, layout: Parameters<typeof testStore>[0] = {}) {
  const t = testStore(layout)
  const queue = await createQueue(sqs, queueName)
  return { t, queue, q: testQueue(t, { orders: queue.url }) }
}

describe('recurring schedules (series)', () => {
  it('fires a 1 s schedule 5 times in about 5 s, each occurrence on time', async () => {
    // prepare
    const { t, queue, q } = await seriesStage('every-second')
    const start = wholeSecond(500)
    const late = new Map<string, number>()
    const s = testScanner(t, { queues: { orders: queue.url }, onSent: (job, _at, lateMs) => late.set(job.id, lateMs) })
    await q.putSchedule('tick', { queue: 'orders', payload: { n: 1 }, everyMs: 1000, startAt: start })
    // act
    await s.runUntil(async () => ((await q.getSchedule('tick'))?.runs ?? 0) >= 5, 15_000)
    await q.deleteSchedule('tick')
    // assess: occurrences start, start+1 s, ... each sent once, with scheduleId / occurrenceAt in the envelope
    const got = bodies(await receiveAll(sqs, queue.url)).sort((a, b) => a.id.localeCompare(b.id))
    const expected = [0, 1, 2, 3, 4].map((k) => start + k * 1000)
    expect(got.map((b) => b.id)).toEqual(expected.map((ms) => `tick@${ms}`))
    expect(got.map((b) => b.occurrenceAt)).toEqual(expected.map((ms) => new Date(ms).toISOString()))
    expect(got.every((b) => b.scheduleId === 'tick' && b.runAt === b.occurrenceAt)).toBe(true)
    const lateness = expected.map((ms) => late.get(`tick@${ms}`)!)
    console.log(`1 s schedule, lateness per occurrence (ms, Redis clock): ${lateness.join(', ')}`)
    // On time: each left before the next was due (the precision figures are the bench's, not a test's).
    expect(lateness.every((ms) => ms >= 0 && ms < 1000)).toBe(true)
    expect(await pendingCount(t.store)).toBe(0)
    await s.close()
    await t.close()
  })

  it('stops after endAt: the last occurrence creates no successor and nothing stays pending', async () => {
    // prepare
    const { t, queue, q } = await seriesStage('ending')
    const start = wholeSecond(300)
    await q.putSchedule('short', { queue: 'orders', payload: 1, everyMs: 1000, startAt: start, endAt: start + 2_500 })
    const s = testScanner(t, { queues: { orders: queue.url } })
    // act
    await s.runUntil(async () => (await q.getSchedule('short'))?.nextRunAt === null, 10_000)
    // assess
    expect(
      bodies(await receiveAll(sqs, queue.url))
        .map((b) => b.id)
        .sort(),
    ).toEqual([0, 1, 2].map((k) => `short@${start + k * 1000}`))
    expect(await q.getSchedule('short')).toMatchObject({
      runs: 3,
      nextRunAt: null,
      lastRunAt: new Date(start + 2000).toISOString(),
    })
    expect(await pendingCount(t.store)).toBe(0)
    await s.close()
    await t.close()
  })

  it('never loses nor doubles the series when a scanner dies between dispatch and ack', async () => {
    // prepare: a scanner leases the first occurrence (short lease), sends it to SQS, and dies before its ack
    const { t, queue, q } = await seriesStage('killed', { shards: 1 })
    const start = wholeSecond(200)
    await q.putSchedule('sturdy', { queue: 'orders', payload: 1, everyMs: 1000, startAt: start })
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
    const s = testScanner(t, { queues: { orders: queue.url } })
    await s.runUntil(async () => ((await q.getSchedule('sturdy'))?.runs ?? 0) >= 3, 10_000)
    const staleAck = await dying.ack(shard, claimed.jobs)
    await q.pauseSchedule('sturdy')
    // assess: the first occurrence went out twice (at least once), the series went on, one job per time
    const ids = bodies(await receiveAll(sqs, queue.url)).map((b) => b.id)
    const runs = (await q.getSchedule('sturdy'))!.runs
    const times = [...new Set(ids)].sort()
    expect(times).toEqual(Array.from({ length: runs }, (_, k) => `sturdy@${start + k * 1000}`))
    expect(ids.filter((id) => id === `sturdy@${start}`)).toHaveLength(2)
    expect(ids.length).toBe(runs + 1)
    expect(staleAck).toBe(0)
    expect(await occurrencesOf(t, 'sturdy')).toEqual([])
    await s.close()
    await t.close()
  })

  it('fires the occurrences missed during an outage once, then carries on from now', async () => {
    // prepare: the schedule's first occurrence comes and 3 more pass with no scanner running
    const { t, queue, q } = await seriesStage('outage')
    const start = wholeSecond(200)
    await q.putSchedule('missed', { queue: 'orders', payload: 1, everyMs: 1000, startAt: start })
    await eventually(async () => Date.now() >= start + 3_500)
    const s = testScanner(t, { queues: { orders: queue.url } })
    // act
    await s.runUntil(async () => ((await q.getSchedule('missed'))?.runs ?? 0) >= 2, 10_000)
    await q.deleteSchedule('missed')
    // assess: the overdue occurrence once, then the first one after the outage (start + 4 s), none in between
    const ids = bodies(await receiveAll(sqs, queue.url))
      .map((b) => b.id)
      .sort()
    expect(ids).toEqual([`missed@${start}`, `missed@${start + 4_000}`])
    await s.close()
    await t.close()
  })

  it('delete and pause stop a running series: nothing pending, nothing sent afterwards', async () => {
    // prepare
    const { t, queue, q } = await seriesStage('stopping')
    const start = wholeSecond(200)
    await q.putSchedule('del', { queue: 'orders', payload: 1, everyMs: 1000, startAt: start })
    await q.putSchedule('pau', { queue: 'orders', payload: 1, everyMs: 1000, startAt: start })
    const s = testScanner(t, { queues: { orders: queue.url } })
    const run = s.runUntil(() => false, 4_500)
    // act: after two runs each
    await eventually(async () => (await q.getSchedule('del'))!.runs >= 2 && (await q.getSchedule('pau'))!.runs >= 2)
    await q.deleteSchedule('del')
    await q.pauseSchedule('pau')
    await new Promise((r) => setTimeout(r, 300)) // an occurrence already being sent may still go out: let it
    const sentBefore = bodies(await receiveAll(sqs, queue.url))
    await run // the scanner keeps running for 2 s more
    // assess
    expect(sentBefore.length).toBeGreaterThanOrEqual(4)
    expect(await occurrencesOf(t, 'del')).toEqual([])
    expect(await occurrencesOf(t, 'pau')).toEqual([])
    expect(await pendingCount(t.store)).toBe(0)
    expect(await receiveAll(sqs, queue.url)).toEqual([])
    expect((await q.getSchedule('pau'))!.runs).toBe(sentBefore.filter((b) => b.scheduleId === 'pau').length)
    await s.close()
    await t.close()
  })
})
