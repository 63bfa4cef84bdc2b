// DISPATCH_WINDOW_MS at its edges: the window must neither cut jobs apart that are due within the first one's window
// (the poll interval), nor leave behind a job that fell due while the run was alive (the run's deadline), nor drop
// occurrences of a recurring schedule whose period is not longer than the window, and on-demand mode must not poll
// Redis every 50 ms while a due job waits out its window. Bounds have slack for a loaded 2-core machine.
import { afterAll, describe, expect, it } from 'vitest'
import { runOnDemand } from '../../src/on-demand/run/run-on-demand'
import { Presence } from '../../src/on-demand/run/presence'
import { job } from '../support/engine'
import { pendingCount } from '../support/scanner'
import { seriesStage, wholeSecond } from '../support/series-stage'
import { sqsClient } from '../support/sqs'
import { windowStage } from '../support/window-stage'
import { batchEntries } from '../../src/sqs/prebuilt-body'

const sqs = sqsClient()
afterAll(() => sqs.destroy())

const stage = (queueName: string, o: { dispatchWindowMs: number; pollIntervalMs: number }) =>
  windowStage(sqs, queueName, o)

// The tests of this file run side by side (each its own key prefix and queues): they wait on real time, not the CPU.
describe.concurrent('dispatch window, at its edges', () => {
  it('with the poll interval no longer than the window (1 s each, the documented example), a job due inside the first one’s window still shares its request', async () => {
    // prepare: a 1 s window and POLL_INTERVAL_MS at its default, 1 s. A due 1 s from now, B 750 ms after A: B is
    // inside A's window (A + 1000), so both belong in A's claim at A + 1 s (the scan's first claim sees nothing due
    // and sleeps until then; nothing wakes the scan, the jobs were enqueued before it). The first claim must come
    // before A is due (a claim that finds A due sends it at once) and at most one poll before it (the sleep ends
    // by the poll + the window): A 1 s away leaves the enqueues and the scan's start 1 s on a loaded machine (500 ms
    // was too little).
    const st = await stage('window-edge-poll', { dispatchWindowMs: 1_000, pollIntervalMs: 1_000 })
    const start = Date.now()
    await st.t.store.enqueue(job({ id: 'pa', due: { atMs: start + 1_000 } }))
    await st.t.store.enqueue(job({ id: 'pb', due: { atMs: start + 1_750 } }))
    try {
      // act
      await st.s.runUntil(async () => (await pendingCount(st.t.store)) === 0, 15_000)
      // assess: one request of both (a poll ending A's wait would have sent A alone and B in a request of its own),
      // A held for its whole window and not for a second one (2 s)
      expect(st.sends).toEqual([2])
      expect(st.late.get('pa')).toBeGreaterThanOrEqual(900)
      expect(st.late.get('pa')).toBeLessThan(2 * 1_000)
    } finally {
      await st.close()
    }
  })

  it('a job that falls due while the run is alive is sent before the run ends, even when its window outlasts the run', async () => {
    // prepare: a 3 s window; the run's deadline 1.5 s away; a job due 300 ms from now. With no window the run sends
    // it at +300 ms; with one it may hold it, but not past its own deadline: no scanner of this run is left to take it,
    // and in AWS the next invocation may not have started (EventBridge fires "within the minute").
    const st = await stage('window-edge-deadline', { dispatchWindowMs: 3_000, pollIntervalMs: 30_000 })
    await st.t.store.enqueue(job({ id: 'dl', due: { delayMs: 300 } }))
    try {
      // act
      const report = await st.s.scanner.run(Date.now() + 1_500)
      // assess: sent by this run (just before its deadline), not left due in Redis for a run that may come late
      expect(st.late.has('dl')).toBe(true)
      expect(report.dispatched).toBe(1)
      expect(await pendingCount(st.t.store)).toBe(0)
    } finally {
      await st.close()
    }
  })

  it('a recurring schedule whose period is not longer than the window keeps every occurrence', async () => {
    // prepare: an occurrence every second and a 2 s window: each occurrence leaves ~2 s late. Its ack creates the
    // successor (lua/schedule-ack.lua), which by then has passed: that must not count as an outage (which skips
    // to the first occurrence after now, losing the ones in between).
    const stage2 = await seriesStage(sqs, 'window-edge-series')
    const start = wholeSecond()
    await stage2.everySecond('win-series', start)
    const sent: string[] = []
    const s = stage2.scanner({
      pollIntervalMs: 30_000,
      leaseMs: 30_000,
      dispatchWindowMs: 2_000,
      onSent: (j) => void sent.push(j.id),
    })
    try {
      // act: until four occurrences went out (or 12 s)
      await s.runUntil(() => sent.length >= 4, 12_000)
      // assess: consecutive occurrence times, one period apart (none skipped)
      const times = sent.map((id) => Number(id.split('@')[1])).sort((a, b) => a - b)
      expect(times.length).toBeGreaterThanOrEqual(3)
      expect(times[0]).toBe(start)
      expect(times.slice(1).map((at, i) => at - times[i]!)).toEqual(times.slice(1).map(() => 1_000))
    } finally {
      await stage2.close()
    }
  })

  it.each([0, 2_000])(
    'a job whose send failed is retried at its backoff, not at the next poll nor after a window (window %i ms)',
    async (dispatchWindowMs) => {
      // prepare: a 30 s poll; the first SendMessageBatch with entries fails (an SQS server error), the job goes back
      // for a retry after its 20-40 ms backoff
      const st = await stage(`window-edge-retry-${dispatchWindowMs}`, { dispatchWindowMs, pollIntervalMs: 30_000 })
      let failed = false
      st.s.sqs.middlewareStack.add((next) => async (args) => {
        const entries = batchEntries(args.input as object)
        if (entries.length && !failed) {
          failed = true
          throw Object.assign(new Error('InternalError'), { $fault: 'server' })
        }
        return next(args)
      })
      await st.t.store.enqueue(job({ id: 'retried', due: { delayMs: 300 } }))
      try {
        // act
        await st.s.runUntil(async () => (await pendingCount(st.t.store)) === 0, 10_000)
        // assess: it failed once, then left about its backoff (20-40 ms) after its first attempt: the window held
        // the first attempt only (a second window would make it 2 windows late), and the 30 s poll was far away
        expect(failed).toBe(true)
        expect(st.late.get('retried')).toBeGreaterThanOrEqual(dispatchWindowMs)
        expect(st.late.get('retried')).toBeLessThan(dispatchWindowMs === 0 ? 5_000 : 2 * dispatchWindowMs)
      } finally {
        await st.close()
      }
    },
  )

  it('on demand, the run stays while a due job waits out its window, sends it, then ends, without polling Redis every 50 ms meanwhile', async () => {
    // prepare: a 4 s window, the default 1 s linger; a job due 300 ms from now
    const st = await stage('window-edge-on-demand', { dispatchWindowMs: 4_000, pollIntervalMs: 30_000 })
    const presence = new Presence(st.t.redis, st.t.keys, 'review')
    let looks = 0
    const look = presence.msUntilNextDue.bind(presence)
    presence.msUntilNextDue = () => {
      looks++
      return look()
    }
    await st.t.store.enqueue(job({ id: 'od', due: { delayMs: 300 } }))
    try {
      // act
      const report = await runOnDemand(st.s.scanner, Date.now() + 20_000, {
        presence,
        horizonMs: 70_000,
        lingerMs: 1_000,
      })
      // assess: it did not end before the job left (one window after its due time, not two), and then it ended early
      expect(report.endedEarly).toBe(true)
      expect(st.late.get('od')).toBeGreaterThanOrEqual(3_900)
      expect(st.late.get('od')).toBeLessThan(4_000 + 2_000)
      // the watch knows when the scanner will take a due job: a look about once a second (the alive marker's
      // refresh) is enough, not one every 50 ms until the window ends (~60 looks)
      expect(looks).toBeLessThan(20)
    } finally {
      await st.close()
    }
  })
})
