// A recurring schedule's occurrence that SQS refuses for a while: it is released with backoff like any job, sent
// once SQS takes it again, and only then (at its ack) creates the next occurrence, so the series neither skips a
// time nor gains a second successor, and the later occurrences keep their own times. "Skips no time" as the series
// promises it (docs/schedules.md): an ack that comes after its successor's time (a retry, or a loaded machine, can take
// that long) leaves that time out on purpose, as a missed occurrence; a time still ahead at the ack must come.
import { afterAll, describe, expect, inject, it } from 'vitest'
import { startSqsFaultProxy } from '../support/sqs-fault-proxy'
import { eventually } from '../support/eventually'
import { pendingCount } from '../support/scanner'
import { occurrencesOf } from '../support/schedules'
import { describeSeries, seriesFaults } from '../support/series-gaps'
import { RECEIPT_TTL_MS, seriesStage, wholeSecond } from '../support/series-stage'
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
    const s = stage.scanner({ sqsEndpoint: proxy.url, backoffBaseMs: 200, receiptTtlMs: RECEIPT_TTL_MS })
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
      // every message, sorted by time, with when each occurrence was created (its predecessor's ack) and sent
      const sent = await stage.received()
      const runs = await stage.runs('flaky')
      const steps = await stage.steps(sent)
      const series = `runs ${runs}, messages:\n${describeSeries(start, steps)}`
      // one message per acknowledged occurrence, none twice, each id naming its own occurrence time
      expect(
        steps.map((x) => x.id),
        series,
      ).toEqual(steps.map((x) => `flaky@${x.atMs}`))
      expect(new Set(sent.map((b) => b.id)).size, series).toBe(runs)
      expect(sent.length, series).toBe(runs)
      // the refused occurrence itself went out, retried, with its own time
      expect(steps[0]?.id, series).toBe(`flaky@${start}`)
      expect(steps[0]?.attempts, series).toBeGreaterThanOrEqual(2)
      // each later occurrence is the next time of the series, unless that time had passed when its predecessor was
      // acknowledged: no time still ahead at an ack is left out, none is off the series
      expect(seriesFaults(steps, 1000), series).toEqual([])
      // no second successor: after the pause nothing of the series is left
      expect(await pendingCount(stage.t.store)).toBe(0)
    } finally {
      await stage.close()
      await proxy.close()
    }
  })
})
