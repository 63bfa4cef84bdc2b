// A recurring schedule's occurrence that SQS refuses for a while: it is released with backoff like any job, sent
// once SQS takes it again, and only then (at its ack) creates the next occurrence, so the series neither skips a
// time nor gains a second successor, and the later occurrences keep their own times.
import { afterAll, describe, expect, inject, it } from 'vitest'
import { startSqsFaultProxy } from '../../local/sqs-fault-proxy'
import { testStore } from '../support/engine'
import { eventually } from '../support/eventually'
import { pendingCount, testScanner } from '../support/scanner'
import { occurrencesOf, testQueue } from '../support/schedules'
import { createQueue, receiveAll, sqsClient } from '../support/sqs'

const sqs = sqsClient()
afterAll(() => sqs.destroy())

describe('a recurring schedule when SQS refuses an occurrence', () => {
  it('retries the refused occurrence, then carries the series on with one message per occurrence time', async () => {
    // prepare: every SendMessageBatch entry refused (InternalError, not the job's fault) until the first refusal
    const t = testStore({ shards: 1 })
    const queue = await createQueue(sqs, 'refused-occurrence')
    const q = testQueue(t, { orders: queue.url })
    const proxy = await startSqsFaultProxy({ target: inject('sqsEndpoint'), refuseRate: 1 })
    const start = Math.ceil((Date.now() + 300) / 1000) * 1000
    await q.putSchedule('flaky', { queue: 'orders', payload: 1, everyMs: 1000, startAt: start })
    const s = testScanner(t, { queues: { orders: queue.url }, sqsEndpoint: proxy.url, backoffBaseMs: 200 })
    try {
      // act: SQS refuses the first occurrence once or more, then takes everything
      const run = s.runUntil(async () => ((await q.getSchedule('flaky'))?.runs ?? 0) >= 3, 15_000)
      await eventually(() => proxy.stats.entriesRefused >= 1)
      const refusedWhileDown = await occurrencesOf(t, 'flaky')
      proxy.setRefuseRate(0)
      await run
      await q.pauseSchedule('flaky')
      // assess: no successor existed while the first occurrence waited for its retry
      expect(refusedWhileDown).toEqual([`flaky@${start}`])
      const sent = (await receiveAll(sqs, queue.url)).map(
        (m) => JSON.parse(m.Body!) as { id: string; occurrenceAt: string },
      )
      const runs = (await q.getSchedule('flaky'))!.runs
      const times = Array.from({ length: runs }, (_, k) => start + k * 1000)
      expect(sent.map((b) => b.id).sort()).toEqual(times.map((ms) => `flaky@${ms}`))
      expect(sent.find((b) => b.id === `flaky@${start}`)!.occurrenceAt).toBe(new Date(start).toISOString())
      expect(await pendingCount(t.store)).toBe(0)
    } finally {
      await s.close()
      await proxy.close()
      await t.close()
    }
  })
})
