// The relay between scan runs: a run stops once a newer run has taken over (their overlap is billed and buys
// nothing), loops to its deadline when none does, and no job is lost or sent twice in the hand-over.
import { eventually } from '../support/eventually'
import { sleep } from '../../devkit/sleep'
import { afterAll, describe, expect, it } from 'vitest'
import { Redis } from 'ioredis'
import { runInvocation, type InvocationOptions } from '../../src/scan/run/invocation'
import { Relay } from '../../src/scan/run/relay'
import { JobStore } from '../../src/store/job-store'
import { NO_REPLICA_WAIT } from '../../src/store/redis/replication'
import { testStore, job } from '../support/engine'
import { silentLogger } from '../support/pipeline'
import { pendingCount, testScanner } from '../support/scanner'
import { countIds, createQueue, receiveAll, sqsClient } from '../support/sqs'

const sqs = sqsClient()
afterAll(() => sqs.destroy())

type Stage = Awaited<ReturnType<typeof relayStage>>

async function relayStage(queueName: string) {
  const t = testStore()
  const q = await createQueue(sqs, queueName)
  const scanners: ReturnType<typeof testScanner>[] = []
  /** Starts one invocation (a scanner of its own, as each Lambda invocation has) that looks from `lookAfterMs`. */
  const invoke = (
    name: string,
    o: {
      firstLookMs?: number
      lookAfterMs?: number
      runMs?: number
      mode?: InvocationOptions['mode']
      /** The connection the relay and the alive marker use (default: the store's). */
      redis?: InvocationOptions['redis']
      lingerMs?: number
      /** Given: the relay's own look times for a run started so (no test overrides). */
      startedBy?: InvocationOptions['startedBy']
    } = {},
  ) => {
    const s = testScanner(t, { queues: { orders: q.url } })
    scanners.push(s)
    const startedAt = Date.now()
    const done = runInvocation(s.scanner, startedAt + (o.runMs ?? 20_000), {
      mode: o.mode ?? 'continuous',
      redis: o.redis ?? t.redis,
      keys: t.keys,
      name,
      onDemand: { horizonMs: 70_000, lingerMs: o.lingerMs ?? 200 },
      startedBy: o.startedBy,
      relay: o.startedBy ? {} : { firstLookMs: o.firstLookMs, lookAfterMs: o.lookAfterMs ?? 0, lookEveryMs: 50 },
      logger: silentLogger(),
    }).then((report) => ({ report, endedAt: Date.now() }))
    return { scanner: s.scanner, startedAt, done }
  }
  const close = async () => {
    for (const s of scanners) await s.close()
    await t.close()
  }
  return { t, q, invoke, close }
}

type StartedBy = NonNullable<InvocationOptions['startedBy']>

/**
 * Two on-demand runs on a stage of their own (`name`), a job due in 30 s keeping both from ending early: `first`
 * starts, `second` `gapMs` later; waits for the first to end, then stops the second and closes the stage (also when
 * a run fails). Returns how the first ended and both invocations.
 */
async function secondRunComes(name: string, first: [string, StartedBy], gapMs: number, second: [string, StartedBy]) {
  const st = await relayStage(name)
  try {
    await st.t.store.enqueue(job({ id: 'later', due: { delayMs: 30_000 } }))
    const a = st.invoke(first[0], { mode: 'on-demand', startedBy: first[1] })
    await sleep(gapMs)
    const b = st.invoke(second[0], { mode: 'on-demand', startedBy: second[1] })
    const ended = await a.done
    b.scanner.stop()
    await b.done
    return { ended, first: a, second: b }
  } finally {
    await st.close()
  }
}

/** Enqueues a job due at once every 20 ms until `stop` resolves; returns their ids. */
async function enqueueUntil(st: Stage, stop: Promise<unknown>): Promise<string[]> {
  const ids: string[] = []
  let stopped = false
  void stop.then(() => (stopped = true))
  while (!stopped) {
    const id = `relay-${ids.length}`
    await st.t.store.enqueue(job({ id }))
    ids.push(id)
    await sleep(20)
  }
  return ids
}

// The tests of this file run side by side (each its own key prefix and queues): they wait on real time, not the CPU.
describe.concurrent('scan relay', () => {
  it('stops an older run once a newer run has taken over, and sends every job of the hand-over exactly once', async () => {
    // prepare: run A scans a stream of jobs due at once, which goes on until 500 ms after A has ended
    const st = await relayStage('relay-handover')
    const a = st.invoke('run-a')
    const stream = enqueueUntil(
      st,
      a.done.then(() => sleep(500)),
    )
    // act: B starts 1 s in and takes over; the stream goes on across the hand-over
    await sleep(1_000)
    const b = st.invoke('run-b')
    const endedA = await a.done
    const ids = await stream
    await expectAllSent(st)
    b.scanner.stop()
    const endedB = await b.done
    // assess: A stopped for B soon after B started (it would have looped for 20 s), B was stopped by hand; each sent
    // some of the stream
    expect(endedA.report.handedOverTo).toBe('run-b')
    expect(endedA.endedAt - b.startedAt).toBeLessThan(2_000)
    expect(endedB.report.handedOverTo).toBeNull()
    expect(endedA.report.dispatched).toBeGreaterThan(0)
    expect(endedB.report.dispatched).toBeGreaterThan(0)
    expect(endedA.report.dispatched + endedB.report.dispatched).toBe(ids.length)
    const counts = countIds(await receiveAll(sqs, st.q.url))
    expect(counts.size).toBe(ids.length)
    expect([...counts.values()].every((n) => n === 1)).toBe(true)
    await st.close()
  })

  it('loops to its deadline when no newer run takes over', async () => {
    // prepare
    const st = await relayStage('relay-alone')
    // act
    const a = st.invoke('run-alone', { runMs: 1_500 })
    const ended = await a.done
    // assess
    expect(ended.report.handedOverTo).toBeNull()
    expect(ended.endedAt - a.startedAt).toBeGreaterThanOrEqual(1_450)
    await st.close()
  })

  it.each([
    { when: 'a newer run takes over at once', firstLookMs: undefined, slowTakeOverMs: 0, takeOverAfterMs: 0 },
    {
      when: 'a newer run takes over after an early look that found nobody',
      firstLookMs: 200,
      slowTakeOverMs: 0,
      takeOverAfterMs: 'first look' as const,
    },
    // Look times count from the run's start, not from the end of a slow take-over (that would be 2.5 s here).
    {
      when: 'its own take-over was answered only after 1 s',
      firstLookMs: 1_500,
      slowTakeOverMs: 1_000,
      takeOverAfterMs: 1_200,
    },
  ])('looks for a newer run only from lookAfterMs after its start: $when', async (o) => {
    // prepare: A looks from 1.5 s after its start (and once early, when firstLookMs is set)
    const st = await relayStage(`relay-look-after-${o.firstLookMs}`)
    const looks = looksAt(st.t.redis, st.t.keys.scanRelayKey)
    const a = st.invoke('run-a', {
      firstLookMs: o.firstLookMs,
      lookAfterMs: 1_500,
      redis: o.slowTakeOverMs ? slowWrites(looks.redis, st.t.keys.scanRelayKey, o.slowTakeOverMs) : looks.redis,
    })
    // act: B takes over (after A's early look has found nobody, however late that look came)
    if (o.takeOverAfterMs === 'first look') await looks.first
    else await sleep(o.takeOverAfterMs)
    const b = st.invoke('run-b', { lookAfterMs: 20_000 })
    const ended = await a.done
    b.scanner.stop()
    await b.done
    // assess: A scanned on until lookAfterMs after its start, and stopped at the look that came then
    expect(ended.report.handedOverTo).toBe('run-b')
    expect(ended.endedAt - a.startedAt).toBeGreaterThanOrEqual(1_450)
    expect(ended.endedAt - a.startedAt).toBeLessThan(2_200)
    await st.close()
  })

  it('a duplicate delivery of the same tick: the run that was taken over stops at its first look, not at lookAfterMs', async () => {
    // prepare: A would look from 20 s on, with one early look at 400 ms
    const st = await relayStage('relay-duplicate')
    const a = st.invoke('run-a', { firstLookMs: 400, lookAfterMs: 20_000 })
    // act: the same tick delivered again starts B at once
    const b = st.invoke('run-b', { firstLookMs: 400, lookAfterMs: 20_000, runMs: 3_000 })
    const ended = await a.done
    // assess: A stopped at its early look; B, the run that holds the key, scans on
    expect(ended.report.handedOverTo).toBe('run-b')
    expect(ended.endedAt - a.startedAt).toBeGreaterThanOrEqual(350)
    expect(ended.endedAt - a.startedAt).toBeLessThan(2_000)
    expect((await b.done).report.handedOverTo).toBeNull()
    await st.close()
  })

  it('a newer run that cannot reach Redis does not take over: the older run loops on to its deadline', async () => {
    // prepare: A runs for 1.5 s; B's connection is closed (commands fail at once)
    const st = await relayStage('relay-unreachable')
    const a = st.invoke('run-a', { runMs: 1_500 })
    // Loopback port 1: nothing listens there, and without an offline queue every command fails at once.
    const unreachable = new Redis({ host: '127.0.0.1', port: 1, lazyConnect: true, enableOfflineQueue: false })
    const b = new Relay(unreachable, st.t.keys.scanRelayKey, 'run-b', { logger: silentLogger() })
    // act: the take-over fails without throwing
    await b.takeOver(Date.now() + 20_000)
    const ended = await a.done
    // assess
    expect(ended.report.handedOverTo).toBeNull()
    expect(ended.endedAt - a.startedAt).toBeGreaterThanOrEqual(1_450)
    unreachable.disconnect()
    await st.close()
  })

  it.each([
    {
      when: 'its take-over failed (a Redis blip as it started) and it then reads the name of the older run',
      name: 'failed',
      redis: failingWrites,
    },
    {
      when: 'a failover lost its acknowledged take-over and the name of the older run is back',
      name: 'lost',
      redis: lostWrite,
    },
  ])('a run does not stop for the run before it when $when', async ({ name, redis }) => {
    // prepare: P, the run of the minute before, holds the relay key and ends 1.5 s from now
    const st = await relayStage(`relay-${name}-take-over`)
    const p = st.invoke('run-p', { runMs: 1_500 })
    await sleep(100)
    // act: A starts with its name write failed or lost; it looks early, at 300 ms
    const a = st.invoke('run-a', {
      firstLookMs: 300,
      lookAfterMs: 20_000,
      runMs: 3_000,
      redis: redis(st.t.redis, st.t.keys.scanRelayKey),
    })
    const endedP = await p.done
    const endedA = await a.done
    // assess: P, which never saw another name, ran to its deadline; A must not stop for P's name, or no run scans
    // from P's deadline until the next tick
    expect(endedP.report.handedOverTo).toBeNull()
    expect(endedA.report.handedOverTo).toBeNull()
    expect(endedA.endedAt - a.startedAt).toBeGreaterThanOrEqual(2_950)
    await st.close()
  })

  it('a run scans while its take-over waits for the Redis node of the relay key', async () => {
    // prepare: a job due now; the relay key's node answers only after 3 s (in a cluster, shard 0's node may hang
    // while the other shards' nodes answer)
    const st = await relayStage('relay-slow-take-over')
    await st.t.store.enqueue(job({ id: 'due-now' }))
    // act
    const a = st.invoke('run-a', { runMs: 6_000, redis: slowWrites(st.t.redis, st.t.keys.scanRelayKey, 3_000) })
    await until(async () => (await pendingCount(st.t.store)) === 0, 10_000)
    const sentAfterMs = Date.now() - a.startedAt
    a.scanner.stop()
    await a.done
    // assess: the job went before the take-over could end (3 s), not after it (1 s was the machine's, not the design's)
    expect(sentAfterMs).toBeLessThan(3_000)
    expect(await st.t.redis.get(st.t.keys.scanRelayKey)).toBe('run-a')
    await st.close()
  })

  it("on-demand mode: a run started by an enqueue stops within a second of the next tick's run taking over", async () => {
    // prepare / act: E, started by an enqueue; the tick comes 700 ms into E's life, a moment E cannot know
    const runs = await secondRunComes('relay-enqueue-started', ['run-e', 'enqueue'], 700, ['run-t', 'tick'])
    // assess: E stopped for T about half a second later (a tick-started run would scan on until its look at 5 s)
    expect(runs.ended.report.handedOverTo).toBe('run-t')
    expect(runs.ended.endedAt - runs.second.startedAt).toBeLessThan(1_500)
  })

  it("on-demand mode: a tick's run stops at its early look (500 ms) for a run an enqueue started as it came up", async () => {
    // prepare / act: T, the tick's run, starts; 100 ms later an enqueue that asked before T's alive marker was there
    // starts E
    const runs = await secondRunComes('relay-tick-meets-start', ['run-t', 'tick'], 100, ['run-e', 'enqueue'])
    // assess: T stopped for E at its early look (500 ms), not at 5 s
    expect(runs.ended.report.handedOverTo).toBe('run-e')
    expect(runs.ended.endedAt - runs.first.startedAt).toBeLessThan(2_500)
  })

  it('on-demand mode: an older run does not stop for a newer run that already ended early, and leaves no alive marker', async () => {
    // prepare: A sends a job, then lingers (5 s) after it; it looks for a newer run once, at 2.5 s
    const st = await relayStage('relay-on-demand-early-end')
    await st.t.store.enqueue(job({ id: 'now' }))
    const a = st.invoke('run-a', { mode: 'on-demand', lingerMs: 5_000, firstLookMs: 2_500, lookAfterMs: 20_000 })
    await until(async () => (await pendingCount(st.t.store)) === 0)
    // act: B (the next tick) takes over, finds nothing due and ends early; A looks at 2.5 s
    const b = await st.invoke('run-b', { mode: 'on-demand', lingerMs: 0, firstLookMs: 20_000 }).done
    const endedA = await a.done
    // assess: A went on after B was gone and ended by itself. No run scans now, so an enqueue of a job due soon must
    // ask for a scanner (it cannot while a marker says one is alive: the job would wait for the next tick)
    expect(b.report).toMatchObject({ endedEarly: true })
    expect(endedA.report).toMatchObject({ handedOverTo: null, endedEarly: true })
    const onDemand = new JobStore(st.t.redis, st.t.keys, { horizonMs: 70_000, guardMs: 10_000 }, NO_REPLICA_WAIT)
    const enqueued = await onDemand.enqueue(job({ id: 'soon', due: { delayMs: 1_000 } }))
    expect(enqueued.startScanner).toBe(true)
    await st.close()
  })

  it('on-demand mode: a run taken over before its scanner started (its alive marker was slow) stops all the same', async () => {
    // prepare: A's alive markers are answered after 1 s; A looks at 300 ms
    const st = await relayStage('relay-on-demand-slow-marker')
    await st.t.store.enqueue(job({ id: 'later', due: { delayMs: 30_000 } }))
    const markers = st.t.keys.shards.map((s) => s.scannerAlive)
    const a = st.invoke('run-a', {
      mode: 'on-demand',
      firstLookMs: 300,
      lookAfterMs: 20_000,
      runMs: 5_000,
      redis: slowWrites(st.t.redis, markers, 1_000),
    })
    // act: B takes over at once, so A's look finds it while A still waits for its marker
    const b = st.invoke('run-b', { mode: 'on-demand', firstLookMs: 20_000, lookAfterMs: 20_000 })
    const ended = await a.done
    b.scanner.stop()
    await b.done
    // assess: A stopped once its scanner started, not at its deadline (5 s)
    expect(ended.report.handedOverTo).toBe('run-b')
    expect(ended.endedAt - a.startedAt).toBeLessThan(2_500)
    await st.close()
  })

  it('on-demand mode: a run scans while its alive marker waits for a Redis node', async () => {
    // prepare: a job due now; the alive markers are answered after 3 s (in a cluster, one node may hang while the
    // others answer)
    const st = await relayStage('relay-on-demand-hanging-marker')
    await st.t.store.enqueue(job({ id: 'due-now' }))
    const markers = st.t.keys.shards.map((s) => s.scannerAlive)
    // act
    const a = st.invoke('run-a', { mode: 'on-demand', runMs: 6_000, redis: slowWrites(st.t.redis, markers, 3_000) })
    await until(async () => (await pendingCount(st.t.store)) === 0, 10_000)
    const sentAfterMs = Date.now() - a.startedAt
    const ended = await a.done
    // assess: the job went before the markers' writes could end (3 s), and the run still ended early, leaving no
    // marker behind
    expect(sentAfterMs).toBeLessThan(3_000)
    expect(ended.report).toMatchObject({ endedEarly: true })
    expect(await Promise.all(markers.map((k) => st.t.redis.exists(k)))).toEqual(markers.map(() => 0))
    await st.close()
  })

  it('on-demand mode: the older run leaves the alive marker to the newer one', async () => {
    // prepare: a job due in 30 s keeps on-demand runs from ending early
    const st = await relayStage('relay-on-demand')
    await st.t.store.enqueue(job({ id: 'later', due: { delayMs: 30_000 } }))
    const a = st.invoke('run-a', { mode: 'on-demand' })
    await sleep(300)
    // act
    const b = st.invoke('run-b', { mode: 'on-demand' })
    const ended = await a.done
    // assess: A stopped for B and took only its own name off the marker: enqueues still see a scanner (B), so they
    // start none
    expect(ended.report).toMatchObject({ handedOverTo: 'run-b', endedEarly: false })
    expect(await st.t.redis.zrange(st.t.keys.shards[0]!.scannerAlive, '0', '-1')).toEqual(['run-b'])
    b.scanner.stop()
    await b.done
    await st.close()
  })
})

/** The store's connection, except that the first `failures` writes of `key` fail (a Redis blip at that moment). */
function failingWrites(redis: InvocationOptions['redis'], key: string, failures = 1): InvocationOptions['redis'] {
  let left = failures
  return new Proxy(redis, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver)
      if (prop !== 'set') return typeof value === 'function' ? value.bind(target) : value
      return (k: string, ...rest: unknown[]) => {
        if (k === key && left-- > 0) return Promise.reject(new Error('Connection is closed.'))
        return (value as (...a: unknown[]) => unknown).call(target, k, ...rest)
      }
    },
  })
}

/** The store's connection, except that writes of `keys` are answered only after `delayMs` (a node that hangs). */
function slowWrites(
  redis: InvocationOptions['redis'],
  keys: string | string[],
  delayMs: number,
): InvocationOptions['redis'] {
  const slow = new Set([keys].flat())
  return new Proxy(redis, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver)
      if (prop !== 'set') return typeof value === 'function' ? value.bind(target) : value
      return async (k: string, ...rest: unknown[]) => {
        if (slow.has(k)) await sleep(delayMs)
        return (value as (...a: unknown[]) => unknown).call(target, k, ...rest)
      }
    },
  })
}

/** The store's connection, and a promise that resolves once a read of `key` (a relay look) has been answered. */
function looksAt(redis: InvocationOptions['redis'], key: string) {
  let answered: () => void = () => {}
  const first = new Promise<void>((r) => (answered = r))
  const watched = new Proxy(redis, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver)
      if (prop !== 'get') return typeof value === 'function' ? value.bind(target) : value
      return async (k: string, ...rest: unknown[]) => {
        const reply = await (value as (...a: unknown[]) => Promise<unknown>).call(target, k, ...rest)
        if (k === key) answered()
        return reply
      }
    },
  })
  return { redis: watched, first }
}

/**
 * The store's connection, except that the first write of `key` is acknowledged and then lost, as in a failover
 * before the write reached the replica: the key holds what it held before.
 */
function lostWrite(redis: InvocationOptions['redis'], key: string): InvocationOptions['redis'] {
  let lost = false
  return new Proxy(redis, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver)
      if (prop !== 'set') return typeof value === 'function' ? value.bind(target) : value
      return async (k: string, ...rest: unknown[]) => {
        if (k !== key || lost) return (value as (...a: unknown[]) => unknown).call(target, k, ...rest)
        lost = true
        // Acknowledged and never kept: the reply SET ... GET gives (the name it replaced), the key unchanged. Writing
        // and then putting the old name back would let the older run see this name in between, one time in fifty.
        return target.get(key)
      }
    },
  })
}

/** Resolves once `done()` holds (checked every 25 ms), or fails after `timeoutMs`. */
async function until(done: () => Promise<boolean>, timeoutMs = 5_000) {
  const deadline = Date.now() + timeoutMs
  while (!(await done())) {
    if (Date.now() > deadline) throw new Error('timed out')
    await sleep(25)
  }
}

async function expectAllSent(st: Stage) {
  await eventually(async () => (await pendingCount(st.t.store)) === 0)
}
