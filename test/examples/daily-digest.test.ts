// Seed: a daily digest at 09:00 in the user's zone. The schedule's real rule is checked on its next run; the
// delivery chain runs at compressed time, with a "day" of one second (a 6-field cron firing every second).
import { sleep } from '../../devkit/sleep'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { digestScheduleId, subscribeDigest, unsubscribeDigest } from '../../examples/daily-digest/app'
import { Outbox } from '../../examples/daily-digest/digests'
import { digestHandler } from '../../examples/daily-digest/handler'
import { eventually, silentLogger, startPipeline } from '../support/pipeline'

const outbox = new Outbox()
const delivered: string[] = []
let pipeline: Awaited<ReturnType<typeof startPipeline>>

beforeAll(async () => {
  const send = async (userId: string) => void delivered.push(userId)
  pipeline = await startPipeline('digests', (sqs) => digestHandler(outbox, send, { sqs, logger: silentLogger() }))
})
afterAll(() => pipeline.stop())

/** The wall-clock hour and minute of an instant in a zone. */
function wallClock(iso: string, timeZone: string): string {
  return new Intl.DateTimeFormat('en-GB', { timeZone, hour: '2-digit', minute: '2-digit', hourCycle: 'h23' }).format(
    new Date(iso),
  )
}

describe('example: daily digest', () => {
  it("schedules the next digest at 09:00 on the user's wall clock, and moves it when they move", async () => {
    // act
    const berlin = await subscribeDigest(pipeline.queue, 'ana', { timezone: 'Europe/Berlin' })
    const tokyo = await subscribeDigest(pipeline.queue, 'ana', { timezone: 'Asia/Tokyo', hour: 8 })
    // assess
    expect(wallClock(berlin.nextRunAt!, 'Europe/Berlin')).toBe('09:00')
    expect(wallClock(tokyo.nextRunAt!, 'Asia/Tokyo')).toBe('08:00')
    expect(await pipeline.queue.get(`${digestScheduleId('ana')}@${Date.parse(berlin.nextRunAt!)}`)).toBeNull()
    expect(await pipeline.queue.get(`${digestScheduleId('ana')}@${Date.parse(tokyo.nextRunAt!)}`)).not.toBeNull()
    await unsubscribeDigest(pipeline.queue, 'ana')
  })

  it('sends one digest per occurrence, each for its own occurrence time, until the user unsubscribes', async () => {
    // prepare + act: a "day" per second
    await subscribeDigest(pipeline.queue, 'ben', { timezone: 'America/New_York' }, '* * * * * *')
    await eventually(() => outbox.sent.filter((d) => d.userId === 'ben').length >= 3)
    await unsubscribeDigest(pipeline.queue, 'ben')
    const count = outbox.sent.filter((d) => d.userId === 'ben').length
    await sleep(1_500)
    // assess: whole seconds, one apart, no repeats; nothing after the unsubscribe (one in flight at most)
    const times = outbox.sent.filter((d) => d.userId === 'ben').map((d) => Date.parse(d.occurrenceAt))
    expect(times.every((t) => t % 1000 === 0)).toBe(true)
    expect(new Set(times).size).toBe(times.length)
    expect(times.slice(1).every((t, i) => t > times[i]!)).toBe(true) // 1 s apart, unless one was missed under load
    expect(times.length - count).toBeLessThanOrEqual(1)
    expect((await pipeline.store.stats()).queues.digests!.pending).toBe(0)
  })
})
