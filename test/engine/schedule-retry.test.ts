// A recurring schedule's occurrence that SQS refuses for a while: it is released with backoff like any job, sent
// once SQS takes it again, and only then (at its ack) creates the next occurrence, so the series neither skips a
// time nor gains a second successor, and the later occurrences keep their own times.
import { afterAll, describe, expect, inject, it } from 'vitest'
import { startSqsFaultProxy } from '../support/sqs-fault-proxy'
import { eventually } from '../support/eventually'
import { pendingCount } from '../support/scanner'
import { occurrencesOf } from '../support/schedules'
import { seriesStage, wholeSecond } from '../support/series-stage'
import { sqsClient } from '../support/sqs'

const sqs = sqsClient()
afterAll(() => sqs.destroy())

describe('a recurring schedule when SQS refuses an occurrence', () => {
  it('retries the refused occurrence, then carries the series on with one message per occurrence time', async () => {
    // prepare: every SendMessageBatch entry refused (InternalError, not the job's fault) until the first refusal
    const stage = await seriesStage(sqs, 'refused-occurrence', { shards: 1 })
    const proxy = await startSqsFaultProxy({ target: inject('sqsEndpoint'), refuseRate: 1 })
    const start = wholeSecond()
    await stage.everySecond('flaky', start)
    const s = stage.scanner({ sqsEndpoint: proxy.url, backoffBaseMs: 200 })
    try {
      // act: SQS refuses the first occurrence once or more, then takes everything
      const run = s.runUntil(async () => (await stage.runs('flaky')) >= 3, 15_000)
      await eventually(() => proxy.stats.entriesRefused >= 1)
      const refusedWhileDown = await occurrencesOf(stage.t, 'flaky')
      proxy.setRefuseRate(0)
      await run
      await stage.q.pauseSchedule('flaky')
      // assess: no successor existed while the first occurrence waited for its retry
      expect(refusedWhileDown).toEqual([`flaky@${start}`])
      const sent = await stage.received()
      const runs = await stage.runs('flaky')
      const times = Array.from({ length: runs }, (_, k) => start + k * 1000)
      expect(sent.map((b) => b.id).sort()).toEqual(times.map((ms) => `flaky@${ms}`))
      expect(sent.find((b) => b.id === `flaky@${start}`)!.occurrenceAt).toBe(new Date(start).toISOString())
      expect(await pendingCount(stage.t.store)).toBe(0)
    } finally {
      await stage.close()
      await proxy.close()
    }
  })
})
