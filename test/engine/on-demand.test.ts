// On-demand scan mode against real Redis and SQS: enqueues start a scanner when nothing runs, one at a time; the
// scanner ends once nothing is due soon; a dead scanner's marker expires and the next enqueue replaces it.
import { sleep } from '../../devkit/sleep'
import { afterAll, describe, expect, it } from 'vitest'
import { Leases } from '../../src/scan/claims/leases'
import { runOnDemand } from '../../src/on-demand/run/run-on-demand'
import { ALIVE_TTL_MS, Presence } from '../../src/on-demand/run/presence'
import { JobStore } from '../../src/store/job-store'
import { NO_REPLICA_WAIT } from '../../src/store/redis/replication'
import { SCAN_START_GUARD_MS } from '../../src/on-demand/start/scan-start'
import type { RedisClient } from '../../src/store/scripts'
import { eventually } from '../support/eventually'
import { testStore } from '../support/engine'
import { inProcessScanFunction, onDemandQueue } from '../support/on-demand'
import { pendingCount, testScanner } from '../support/scanner'
import { countIds, createQueue, receiveAll, sqsClient } from '../support/sqs'

const sqs = sqsClient()
afterAll(() => sqs.destroy())

/**
 * Slack over the measured start, for the claim and the first (cold) SendMessageBatch: generous, as this machine is
 * shared and a test must not turn into a benchmark (bench:on-demand measures the precision). A job the started run
 * missed (it came up too late for the job, or ended before it was due) waits for a scheduled run, and none comes
 * here: it is never sent. 400 ms failed now and then with two busy loops beside the suite (the 5 s case, whose
 * scanner sleeps until the job is due: a timer, a claim and a send in a starved process).
 */
const SLACK_MS = 1_000

/** A store and a target queue ("orders"), the in-process scan function on them, and a DelayQueue that starts it. */
async function onDemandStage(queueName: string, options: { buckets?: number; mode?: string } = {}) {
  const t = testStore({ buckets: options.buckets })
  const q = await createQueue(sqs, queueName)
  const fn = inProcessScanFunction(t, { orders: q.url })
  const queue = onDemandQueue(t, { orders: q.url }, fn.invoker, options.mode)
  return { t, q, fn, queue }
}

/**
 * A plain store (nothing it stores asks for a start) and a target queue ("orders"); `scanFunction(o)` is an in-process
 * scan function on them, as a scheduled tick runs it.
 */
async function plainStage(queueName: string) {
  const t = testStore()
  const q = await createQueue(sqs, queueName)
  const scanFunction = (o?: Parameters<typeof inProcessScanFunction>[2]) =>
    inProcessScanFunction(t, { orders: q.url }, o)
  return { t, q, scanFunction }
}

/** How many runs the alive marker of the store's (only) shard holds: 0 once no scanner is marked alive. */
const aliveMarker = (t: ReturnType<typeof testStore>) => t.redis.exists(t.keys.shards[0]!.scannerAlive)

// The burst of 1,000 enqueues runs alone, first: it loads the process the other tests time.
describe('on-demand scan mode under a burst', () => {
  it('starts at most one scanner for 1,000 concurrent enqueues, and dispatches all of them', async () => {
    // prepare
    const { t, q, fn, queue } = await onDemandStage('od-burst', { buckets: 256 })
    // act: single schedules and batches, all at once
    const ids = Array.from({ length: 1_000 }, (_, i) => `burst-${i}`)
    await Promise.all([
      ...ids.slice(0, 500).map((id, i) => queue.schedule({ id, queue: 'orders', payload: i, delayMs: i % 3 })),
      ...[0, 1, 2, 3, 4].map((b) =>
        queue.scheduleMany(ids.slice(500 + b * 100, 600 + b * 100).map((id) => ({ id, queue: 'orders', payload: b }))),
      ),
    ])
    await eventually(async () => (await pendingCount(t.store)) === 0, 20_000)
    await fn.settled()
    // assess
    expect(fn.invocations).toHaveLength(1)
    const counts = countIds(await receiveAll(sqs, q.url))
    expect(counts.size).toBe(1_000)
    expect([...counts.values()].every((n) => n === 1)).toBe(true)
    await t.close()
  })
})

// The other tests run side by side (each its own key prefix, queue and scanners): they wait on real time (a 5 s delay,
// a marker's 5 s expiry, a 3 s linger), not on the CPU.
describe.concurrent('on-demand scan mode', () => {
  for (const delayMs of [0, 1_000, 5_000]) {
    it(`dispatches a job enqueued with a ${delayMs} ms delay while no scanner runs, within the scanner's start time`, async () => {
      // prepare: nothing runs
      const { t, q, fn, queue } = await onDemandStage(`od-${delayMs}`)
      // act
      await queue.schedule({ id: 'soon', queue: 'orders', payload: { delayMs }, delayMs })
      await eventually(() => fn.sent.length === 1, delayMs + 10_000)
      const [report] = await fn.settled()
      // assess: one start; the job is late by at most the part of the scanner's start that came after its due time
      // (none when it came up before: the 1 s case counted none even when a loaded start took longer); then the
      // scanner ended
      expect(fn.invocations).toHaveLength(1)
      const startMs = fn.invocations[0]!.upAt! - fn.invocations[0]!.invokedAt
      expect(fn.sent[0]!.lateMs).toBeLessThanOrEqual(Math.max(0, startMs - delayMs) + SLACK_MS)
      expect(report!.endedEarly).toBe(true)
      expect(await aliveMarker(t)).toBe(0)
      expect([...countIds(await receiveAll(sqs, q.url))]).toEqual([['soon', 1]])
      await t.close()
    })
  }

  it('replaces a scanner that died while marked alive once its marker expires, and loses nothing', async () => {
    // prepare: a scanner marked itself alive, leased a job (1 s lease) and died without a word
    const { t, q, fn, queue } = await onDemandStage('od-dead')
    // (the clock read before the marker's write: its expiry counts from the write, which a loaded machine delays)
    const diedAt = Date.now()
    await new Presence(t.redis, t.keys, 'dead').markAlive()
    const leases = new Leases(t.redis, { leaseMs: 1_000, maxAttempts: 10, backoffBaseMs: 10, backoffMaxMs: 10 })
    await t.store.enqueue({ id: 'leased', queue: 'orders', payloadJson: '1', due: { delayMs: 0 } })
    for (const shard of t.keys.shards) await leases.claim(shard, await leases.seedHints(shard, 10), 10)
    // act: a job every 200 ms, due at once
    let n = 0
    while (fn.invocations.length === 0 && Date.now() - diedAt < ALIVE_TTL_MS + 3_000) {
      await queue.schedule({ id: `after-${++n}`, queue: 'orders', payload: n })
      await sleep(200)
    }
    await eventually(async () => (await pendingCount(t.store)) === 0, 15_000)
    await fn.settled()
    // assess: replaced within the marker's expiry (plus one enqueue interval), every job sent once
    expect(fn.invocations).toHaveLength(1)
    expect(fn.invocations[0]!.invokedAt - diedAt).toBeGreaterThanOrEqual(ALIVE_TTL_MS - 100)
    expect(fn.invocations[0]!.invokedAt - diedAt).toBeLessThanOrEqual(ALIVE_TTL_MS + 1_000)
    const counts = countIds(await receiveAll(sqs, q.url))
    expect(counts.get('leased')).toBe(1)
    expect(counts.size).toBe(n + 1)
    expect([...counts.values()].every((c) => c === 1)).toBe(true)
    await t.close()
  })

  it('keeps a job whose scan start failed and answers as usual; the next scheduled run takes it', async () => {
    // prepare: Lambda refuses every invoke (throttled, no network)
    const { t, q, scanFunction } = await plainStage('od-fail')
    let calls = 0
    const failing = {
      async invoke() {
        calls++
        throw new Error('TooManyRequestsException')
      },
    }
    const queue = onDemandQueue(t, { orders: q.url }, failing)
    // act
    const first = await queue.schedule({ id: 'kept-1', queue: 'orders', payload: 1 })
    await queue.schedule({ id: 'kept-2', queue: 'orders', payload: 2 })
    // assess: both stored and scheduled, a start was tried (its retries and guard: test/engine/scan-start.test.ts)
    expect(first.status).toBe('scheduled')
    expect((await t.store.get('kept-1'))!.status).toBe('scheduled')
    expect((await t.store.get('kept-2'))!.status).toBe('scheduled')
    expect(calls).toBeGreaterThanOrEqual(1)
    // and a scheduled run takes them (the start still retrying sees it alive, and stops)
    const fn = scanFunction()
    await fn.tick().done
    expect([...countIds(await receiveAll(sqs, q.url))].sort()).toEqual([
      ['kept-1', 1],
      ['kept-2', 1],
    ])
    await t.close()
  })

  it('starts a scanner for a recurring schedule whose first occurrence is due within the horizon', async () => {
    // prepare
    const { t, fn, queue } = await onDemandStage('od-sched')
    // act: every 2 s; stop the series once its first occurrence went out
    await queue.putSchedule('tick', { queue: 'orders', payload: { n: 1 }, everyMs: 2_000 })
    await eventually(() => fn.sent.length >= 1, 10_000)
    await queue.deleteSchedule('tick')
    await fn.settled()
    // assess: one start, the occurrence sent, and the scanner ended once nothing was due
    expect(fn.invocations).toHaveLength(1)
    expect(fn.sent[0]!.id).toMatch(/^tick@\d+$/)
    expect(await aliveMarker(t)).toBe(0)
    await t.close()
  })

  it('starts a scanner for a job run now, and for jobs run now by a run-due, when none runs', async () => {
    // prepare: jobs due in an hour (beyond the horizon: nothing started for them)
    const { t, fn, queue } = await onDemandStage('od-run-now')
    await queue.schedule({ id: 'later-1', queue: 'orders', payload: 1, delayMs: 3_600_000 })
    await queue.schedule({ id: 'later-2', queue: 'orders', payload: 2, delayMs: 3_600_000 })
    expect(fn.invocations).toHaveLength(0)
    // act: one run now; once that scanner ended, the other by a run-due
    await queue.runNow('later-1')
    await eventually(() => fn.sent.length >= 1, 10_000)
    await fn.settled()
    await queue.runDue({ before: Date.now() + 7_200_000 })
    await eventually(() => fn.sent.length >= 2, 10_000)
    await fn.settled()
    // assess: a start each time, both jobs sent
    expect(fn.invocations).toHaveLength(2)
    expect(fn.sent.map((s) => s.id)).toEqual(['later-1', 'later-2'])
    await t.close()
  })

  it('starts a scanner for a run now of a job due already while none runs (an earlier start failed, or its answer was lost)', async () => {
    // prepare: a job due now stored without asking for a start (as after a start that gave up), no scanner
    const { t, fn, queue } = await onDemandStage('od-run-due-job')
    await t.store.enqueue({ id: 'overdue', queue: 'orders', payloadJson: '1', due: { delayMs: 0 } })
    expect(await aliveMarker(t)).toBe(0)
    // act: the operator runs it now (nothing to move: it is due)
    const answer = await queue.runNow('overdue')
    // assess: unchanged, and a scanner started that sends it
    expect(answer.runAt).toBe(answer.previousRunAt)
    await eventually(() => fn.sent.length >= 1, 10_000)
    await fn.settled()
    expect(fn.invocations).toHaveLength(1)
    expect(fn.sent.map((s) => s.id)).toEqual(['overdue'])
    await t.close()
  })

  it('starts a scanner for a job moved to a time within the horizon (the dashboard’s reschedule) when none runs', async () => {
    // prepare: a job due in an hour (beyond the horizon: nothing started for it)
    const { t, fn, queue } = await onDemandStage('od-move')
    await queue.schedule({ id: 'moved', queue: 'orders', payload: 1, delayMs: 3_600_000 })
    expect(fn.invocations).toHaveLength(0)
    // act: moved to half a second from now
    await queue.runNow('moved', { delayMs: 500 })
    // assess: a start, and the job sent
    await eventually(() => fn.sent.length >= 1, 10_000)
    await fn.settled()
    expect(fn.invocations).toHaveLength(1)
    expect(fn.sent.map((s) => s.id)).toEqual(['moved'])
    await t.close()
  })

  it('starts a scanner at the end of a run-due that found the jobs due already while none runs (a retry of one whose answer was lost)', async () => {
    // prepare: a job due now stored without asking for a start (as after the first attempt's start was lost)
    const { t, fn, queue } = await onDemandStage('od-run-due-again')
    await t.store.enqueue({ id: 'due-again', queue: 'orders', payloadJson: '1', due: { delayMs: 0 } })
    // act: the run-due, which has nothing left to move
    const answer = await queue.runDue({ before: Date.now() + 3_600_000 })
    // assess: a start, and the job sent
    expect(answer).toEqual({ promoted: 0, cursor: null })
    await eventually(() => fn.sent.length >= 1, 10_000)
    await fn.settled()
    expect(fn.invocations).toHaveLength(1)
    expect(fn.sent.map((s) => s.id)).toEqual(['due-again'])
    await t.close()
  })

  it('keeps a scheduled run going while a job is due within the horizon, and ends it after the job and a linger', async () => {
    // prepare: one job due in 1.5 s, one in two hours; nothing asks for a start (plain store)
    const { t, scanFunction } = await plainStage('od-tick')
    const fn = scanFunction({ lingerMs: 300 })
    const { dueMs } = await t.store.enqueue({
      id: 'soon',
      queue: 'orders',
      payloadJson: '1',
      due: { delayMs: 1_500 },
    })
    await t.store.enqueue({ id: 'later', queue: 'orders', payloadJson: '2', due: { delayMs: 7_200_000 } })
    // act: the schedule fires
    const report = await fn.tick().done
    // assess: it stayed for "soon", left "later" to a later run, and did not run to its 20 s deadline
    expect(fn.sent.map((s) => s.id)).toEqual(['soon'])
    expect(report.endedEarly).toBe(true)
    expect(Date.now() - dueMs).toBeLessThan(5_000)
    expect((await t.store.get('later'))!.status).toBe('scheduled')
    await t.close()
  })

  it('ends a scheduled run at once when nothing is due within the horizon', async () => {
    // prepare
    const { t, scanFunction } = await plainStage('od-empty')
    // (a linger of 5 s: "at once" is then anything under it, also on a loaded machine)
    const fn = scanFunction({ lingerMs: 5_000 })
    await t.store.enqueue({ id: 'later', queue: 'orders', payloadJson: '2', due: { delayMs: 7_200_000 } })
    // act
    const started = Date.now()
    const report = await fn.tick().done
    // assess: no linger without work, marker gone
    expect(report.endedEarly).toBe(true)
    expect(Date.now() - started).toBeLessThan(5_000)
    expect(await aliveMarker(t)).toBe(0)
    await t.close()
  })

  it('a run that ends takes only its own name off the alive marker: enqueues still see the run that lingers', async () => {
    // prepare: run A sent a job and lingers (3 s) for more
    const { t, scanFunction } = await plainStage('od-owner')
    const a = scanFunction({ lingerMs: 3_000 })
    await t.store.enqueue({ id: 'now', queue: 'orders', payloadJson: '1', due: { delayMs: 0 } })
    a.tick()
    await eventually(() => a.sent.length === 1, 5_000)
    // act: a tick's run T finds nothing due and ends; then a job due in 2 s is enqueued
    const tick = scanFunction({ lingerMs: 0 })
    const report = await tick.tick().done
    const soon = await onDemandStore(t).enqueue({
      id: 'soon',
      queue: 'orders',
      payloadJson: '2',
      due: { delayMs: 2_000 },
    })
    // assess: T ended early, A still stood in the marker, so the enqueue asked for no second scanner; A takes it
    expect(report.endedEarly).toBe(true)
    expect(soon.startScanner).toBe(false)
    await eventually(() => a.sent.length === 2, 10_000)
    await a.settled()
    await t.close()
  })

  it('an enqueue that lands as a run retires is seen by the run or starts a scanner, never both', async () => {
    // prepare: a run with nothing due; the moment its alive marker is removed, a job due in 2 s is enqueued
    const t = testStore()
    const q = await createQueue(sqs, 'od-retire-race')
    const s = testScanner(t, { queues: { orders: q.url } })
    let asked: boolean | undefined
    const enqueueOnce = async () => {
      if (asked !== undefined) return
      asked = false
      const result = await onDemandStore(t).enqueue({
        id: 'racing',
        queue: 'orders',
        payloadJson: '1',
        due: { delayMs: 2_000 },
      })
      asked = result.startScanner
    }
    const redis = afterMarkerRemoval(t.redis, t.keys.shards[0]!.scannerAlive, enqueueOnce)
    // act
    const report = await runOnDemand(s.scanner, Date.now() + 5_000, {
      presence: new Presence(redis, t.keys, 'retiring'),
      horizonMs: 70_000,
      lingerMs: 0,
    })
    await s.close()
    // assess: exactly one of the two takes the job: the run stayed and sent it, or the enqueue asked for a scanner
    // (both: two scanners side by side)
    expect(asked).toBeDefined()
    expect({ sentByRun: report.dispatched === 1, asked }).toSatisfy(
      ({ sentByRun, asked }: { sentByRun: boolean; asked: boolean }) => sentByRun !== asked,
    )
    await t.close()
  })

  it('never asks for a scanner in continuous mode (the scheduled runs loop all the time)', async () => {
    // prepare
    const { t, q, fn, queue } = await onDemandStage('od-cont', { mode: 'continuous' })
    // act
    await queue.schedule({ id: 'now', queue: 'orders', payload: 1 })
    // assess: no start, no guard; a continuous scanner sends the job as before
    expect(fn.invocations).toHaveLength(0)
    for (const shard of t.keys.shards) expect(await t.redis.exists(shard.scanStart)).toBe(0)
    const s = testScanner(t, { queues: { orders: q.url } })
    await s.runUntil(async () => (await pendingCount(t.store)) === 0, 5_000)
    await s.close()
    expect([...countIds(await receiveAll(sqs, q.url))]).toEqual([['now', 1]])
    await t.close()
  })
})

/** A store whose enqueues ask for a scanner (on-demand mode). */
function onDemandStore(t: ReturnType<typeof testStore>) {
  return new JobStore(t.redis, t.keys, { horizonMs: 70_000, guardMs: SCAN_START_GUARD_MS }, NO_REPLICA_WAIT)
}

/** `redis`, except that once a command removing the alive marker `key` has been answered, `then` runs first. */
function afterMarkerRemoval(redis: RedisClient, key: string, then: () => Promise<void>): RedisClient {
  return new Proxy(redis, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver)
      if (typeof value !== 'function') return value
      // the retire script (a run's own name, in one step with its look at the due times), or a plain DEL
      if (prop !== 'sdqScannerRetire' && prop !== 'del') return value.bind(target)
      return async (...args: unknown[]) => {
        const reply = await value.apply(target, args)
        if (args.includes(key)) await then()
        return reply
      }
    },
  })
}
