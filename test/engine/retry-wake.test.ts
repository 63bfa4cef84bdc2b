// Retries after a failed send come at their backoff: a release brings the shard's sleep forward to the retry time
// (src/scan/loop/wake.ts bringForward), even when it lands while the shard is claiming, and without cutting other jobs'
// dispatch windows short; an outage costs a bounded number of claims. Also the window's deadline rule for a job due
// in a run's last moments. Bounds have slack for a loaded 2-core machine.
import { sleep } from '../../devkit/sleep'
import { afterAll, describe, expect, inject, it } from 'vitest'
import type { ClaimedJob } from '../../src/scan/claims/claimed-job'
import { connectRedis } from '../../src/store/redis/redis'
import { job, testStore } from '../support/engine'
import { pendingCount, testScanner } from '../support/scanner'
import { createQueue, sqsClient } from '../support/sqs'
import { startTcpProxy } from '../support/tcp-proxy'
import { batchEntries } from '../../src/sqs/prebuilt-body'

const sqs = sqsClient()
afterAll(() => sqs.destroy())
const serverError = () => Object.assign(new Error('InternalError'), { $fault: 'server' })

/** A one-shard scanner on one queue, recording each job's lateness, and each SendMessageBatch's job ids. */
async function stage(
  queueName: string,
  o: { dispatchWindowMs: number; pollIntervalMs: number; backoffBaseMs?: number; backoffMaxMs?: number },
) {
  const t = testStore({ shards: 1 })
  const q = await createQueue(sqs, queueName)
  const late = new Map<string, number>()
  const s = testScanner(t, {
    queues: { orders: q.url },
    pollIntervalMs: o.pollIntervalMs,
    leaseMs: 30_000,
    dispatchWindowMs: o.dispatchWindowMs,
    backoffBaseMs: o.backoffBaseMs,
    backoffMaxMs: o.backoffMaxMs,
    onSent: (j: ClaimedJob, _at: number, lateMs: number) => late.set(j.id, lateMs),
  })
  /** Job ids of each SendMessageBatch with entries, failed or not, in the order they were made. */
  const sends: string[][] = []
  /** Set by a test: what to do with a request before it goes (throw to fail it). */
  let before: (ids: string[]) => Promise<void> | void = () => {}
  s.sqs.middlewareStack.add((next) => async (args) => {
    const entries = batchEntries(args.input as object)
    if (entries.length > 0) {
      const ids = entries.map((e) => JSON.stringify(e))
      sends.push(ids)
      await before(ids)
    }
    return next(args)
  })
  return {
    t,
    s,
    late,
    sends,
    /** The requests whose entries name job `id`. */
    sendsOf: (id: string) => sends.filter((ids) => ids.some((e) => e.includes(`"${id}"`))),
    onSend(f: (ids: string[]) => Promise<void> | void) {
      before = f
    },
    async close() {
      await s.close()
      await t.close()
    },
  }
}

// The tests of this file run side by side (each its own key prefix and queues): they wait on real time, not the CPU.
describe.concurrent('retries and the dispatch window', () => {
  it.each([0, 1_000])(
    'an SQS outage costs at most about two claims per failed send (no hot loop: each retry waits for its backoff; window %i ms)',
    async (dispatchWindowMs) => {
      // prepare: ten jobs due at once; every send fails for the first 1.2 s (an SQS outage), then SQS is back. Backoff
      // 20 ms doubling to 200 ms: about eight attempts each during the outage, each jittered apart.
      const st = await stage(`retry-outage-${dispatchWindowMs}`, { dispatchWindowMs, pollIntervalMs: 1_000 })
      const ids = Array.from({ length: 10 }, (_, i) => `out-${i}`)
      const at = Date.now() + 300
      for (const id of ids) await st.t.store.enqueue(job({ id, due: { atMs: at } }))
      const outageEnds = at + 1_200
      st.onSend(() => {
        if (Date.now() < outageEnds) throw serverError()
      })
      try {
        // act
        const report = await st.s.runUntil(async () => (await pendingCount(st.t.store)) === 0, 15_000)
        // assess: all sent once the outage ended; claims bounded by the sends (a failed send's release brings the
        // shard's sleep forward to its retry: one extra claim at most), not spinning while retries wait out their backoff
        expect(ids.every((id) => st.late.has(id))).toBe(true)
        const sendCalls = st.sends.length
        expect(sendCalls).toBeGreaterThan(5)
        expect(sendCalls).toBeLessThan(250)
        expect(report.claims).toBeLessThanOrEqual(2 * sendCalls + 20)
      } finally {
        await st.close()
      }
    },
  )

  it('a release settled while a claim is in flight still brings its retry forward, not to the next poll', async () => {
    // prepare: no window, a 30 s poll. Claims reply 600 ms late (the script runs at once; only its reply is slow:
    // a slow network, or an event loop short of CPU), which widens the time the shard is awake, with no sleep to
    // bring forward. A is due in 300 ms and its first send fails; B is due 300 ms later, so the claim that takes B
    // is in flight when A's release lands.
    const st = await stage('retry-lost-wake', { dispatchWindowMs: 0, pollIntervalMs: 30_000 })
    const claim = st.s.leases.claim.bind(st.s.leases)
    st.s.leases.claim = async (...args: Parameters<typeof claim>) => {
      const result = await claim(...args)
      await sleep(600)
      return result
    }
    let failed = false
    st.onSend((ids) => {
      if (!failed && ids.some((e) => e.includes('"lw-a"'))) {
        failed = true
        throw serverError()
      }
    })
    const at = Date.now() + 300
    await st.t.store.enqueue(job({ id: 'lw-a', due: { atMs: at } }))
    await st.t.store.enqueue(job({ id: 'lw-b', due: { atMs: at + 300 } }))
    try {
      // act
      await st.s.runUntil(async () => (await pendingCount(st.t.store)) === 0, 8_000)
      // assess: A failed once and was retried at its 20-40 ms backoff (+ a claim's slow reply or two), not at
      // the 30 s poll
      expect(failed).toBe(true)
      expect(st.late.get('lw-a')).toBeLessThan(4_000)
    } finally {
      await st.close()
    }
  })

  it('with a window, a release whose retry is far away does not cut the window of jobs already due short', async () => {
    // prepare: a 1.5 s window, a 30 s poll, a 10 s backoff. X is due in 300 ms; its send (at X + 1.5 s) fails
    // after 1 s (SQS slow to fail: a timeout). G1 is due 400 ms after X's claim, G2 1.3 s after it: both belong in one
    // request at G1 + 1.5 s. X's release, at about X's claim + 1 s, comes when G1 is already due: a claim then would
    // take G1 alone, its window cut short. X's retry is 5-10 s away: the shard sleeps on. (G1 is due 400 ms after
    // X's claim, not sooner: a claim takes every job due by the time it runs, so one that a loaded machine makes
    // 131 ms late took G1 with X, which is not the case at stake.)
    const W = 1_500
    const st = await stage('retry-window-cut', {
      dispatchWindowMs: W,
      pollIntervalMs: 30_000,
      backoffBaseMs: 10_000,
      backoffMaxMs: 10_000,
    })
    st.onSend(async (ids) => {
      if (ids.some((e) => e.includes('"wc-x"'))) {
        await sleep(1_000)
        throw serverError()
      }
    })
    const x = Date.now() + 300
    await st.t.store.enqueue(job({ id: 'wc-x', due: { atMs: x } }))
    await st.t.store.enqueue(job({ id: 'wc-g1', due: { atMs: x + W + 400 } }))
    await st.t.store.enqueue(job({ id: 'wc-g2', due: { atMs: x + W + 1_300 } }))
    try {
      // act: until G1 and G2 went out (X waits for its retry; the run stops first)
      await st.s.runUntil(() => st.late.has('wc-g1') && st.late.has('wc-g2'), 10_000)
      // assess: X failed; G1 held for about its whole window, in one request with G2
      expect(st.sendsOf('wc-x').length).toBeGreaterThanOrEqual(1)
      const requests = st.sends.map((r) =>
        ['wc-x', 'wc-g1', 'wc-g2'].filter((id) => r.some((e) => e.includes(`"${id}"`))),
      )
      expect(st.late.get('wc-g1'), `requests: ${JSON.stringify(requests)}`).toBeGreaterThanOrEqual(W - 300)
      expect(st.sendsOf('wc-g1')).toEqual(st.sendsOf('wc-g2'))
    } finally {
      await st.close()
    }
  })

  it.each([
    { when: 'with a window,', dispatchWindowMs: 3_000, busy: false },
    { when: 'without a window, its claim fired late by a busy event loop,', dispatchWindowMs: 0, busy: true },
    { when: 'with a window, its claim fired late by a busy event loop,', dispatchWindowMs: 3_000, busy: true },
  ])('$when a job due in the run’s last 50 ms is still sent by the run', async ({ dispatchWindowMs, busy }) => {
    // prepare: the run's deadline 1.5 s away, a job due 25 ms before it (after the last-claim mark, deadline − 50 ms:
    // with a window the run claims it at its due time, not a window later). When busy, the event loop is blocked from
    // 40 ms before the deadline to 20 ms after it (a loaded machine, a long GC): the claim's timer fires after it.
    const st = await stage(`retry-last-50-${dispatchWindowMs}-${busy}`, { dispatchWindowMs, pollIntervalMs: 30_000 })
    const until = Date.now() + 1_500
    await st.t.store.enqueue(job({ id: 'l50', due: { atMs: until - 25 } }))
    if (busy) {
      setTimeout(
        () => {
          while (Date.now() < until + 20);
        },
        until - 40 - Date.now(),
      )
    }
    try {
      // act
      const startedBeforeDeadlineMs = until - Date.now()
      const report = await st.s.scanner.run(until)
      // assess: sent by this run, its claim late if need be: the next run may start a minute later
      const seen = {
        startedBeforeDeadlineMs,
        claims: report.claims,
        errors: report.errors,
        durationMs: report.durationMs,
      }
      expect(report.dispatched, JSON.stringify(seen)).toBe(1)
      expect(await pendingCount(st.t.store)).toBe(0)
    } finally {
      await st.close()
    }
  })

  it('sends a job due in the run’s last moments that its reading of Redis’s clock puts after the deadline', async () => {
    // prepare: the scanner reaches Redis through a path whose answers come back 150 ms late (a loaded host: its event
    // loop took them late). Redis reads its clock at the start of that trip, the scanner takes the middle: Redis's
    // clock reads ~75 ms behind, ±75. The job is due 25 ms before the run's deadline; it reads as due ~50 ms after.
    const t = testStore({ shards: 1 })
    const redisPort = Number(new URL(inject('redisUrl')).port)
    const slowBack = await startTcpProxy(redisPort, 0, 150)
    const proxied = connectRedis({ url: `redis://127.0.0.1:${slowBack.port}` })
    const q = await createQueue(sqs, 'retry-reading-deadline')
    const s = testScanner({ redis: proxied, keys: t.keys }, { queues: { orders: q.url }, pollIntervalMs: 30_000 })
    const until = Date.now() + 1_500
    await t.store.enqueue(job({ id: 'rd-1', due: { atMs: until - 25 } }))
    try {
      // act
      const report = await s.scanner.run(until)
      // assess: claimed once more at the deadline, and sent by this run (without that, left for the next one)
      expect(report.dispatched).toBe(1)
      expect(await pendingCount(t.store)).toBe(0)
    } finally {
      await s.close()
      proxied.disconnect()
      await slowBack.close()
      await t.close()
    }
  })
})
