// `npm run bench:on-demand-faults [-- --quick | --only=lost,race]`: on-demand mode when a start fails, on the local stack
// (serverless-offline with the real handlers, fauxqs, a private redis-server), with a fault proxy between the API and
// the Lambda endpoint (bench/lambda-fault-proxy.ts) that can make an invoke hang, get lost (202, never run) or be
// throttled (429). Lateness is what the scan function reports: time SQS accepted the job - its due time. Writes the
// `onDemandFaults` section of bench/results.json.
//
// 1. The write's answer: POST /jobs (each one asking for a start: no scanner alive, the start guard cleared) with
//    the invoke passed through, and with every invoke hanging; client-side round trips.
// 2. One lost, then one throttled first invoke: a job due in 5 s, TRIALS times each; its lateness.
// 3. Lambda throttling every invoke for 30 s: a job due in 5 s posted every 3 s; the tick after the throttling comes
//    10 s after it ends. The latest job, and the "scan start failed" lines the API logged.
// 4. A run started by an enqueue meets a tick: how long it scans beside the tick's run.
// 5. The retire race: a tick's run that finds nothing due ends while a job due in 2 s is posted at a random moment
//    of the tick's invoke; how often two scans ran, and for how long side by side (their `scan finished` spans).
import { sleep } from '../devkit/sleep'
import { readFileSync, writeFileSync } from 'node:fs'
import { resolve } from 'node:path'
import { startDevStack } from '../local/dev-stack'
import { startLambdaFaultProxy } from './lambda-fault-proxy'
import { invokeFunction } from '../tools/sdq-poll/invoke-function'
import { Keyspace } from '../src/store/keys'
import { connectRedis } from '../src/store/redis/redis'
import { runMain } from './main'
import { until } from './until'
import { percentiles } from '../devkit/stats'

const quick = process.argv.includes('--quick')
const N = quick ? { latency: 20, trials: 10, meets: 3, race: 10 } : { latency: 100, trials: 100, meets: 10, race: 30 }
const log = (msg: string) => console.error(`[bench:on-demand-faults ${new Date().toISOString().slice(11, 19)}] ${msg}`)

interface ScanLine {
  timestamp: string
  source?: string
  activeMs: number
  endedEarly?: boolean
  handedOverTo?: string | null
  dispatched: number
  lateness: { max: number } | null
}

async function main() {
  const started = Date.now()
  const proxy = await startLambdaFaultProxy()
  const lines: ScanLine[] = []
  const failedStarts: string[] = []
  const stack = await startDevStack({
    persist: false,
    env: { SCAN_MODE: 'on-demand', ON_DEMAND_LINGER_MS: '300' },
    scanTickMs: 0,
    lambdaEndpoint: proxy.url,
    onOutput: (line) => {
      const at = line.indexOf('{"level"')
      if (at < 0) return
      if (line.includes('"scan finished"')) lines.push(JSON.parse(line.slice(at)) as ScanLine)
      if (line.includes('"scan start failed')) failedStarts.push(line.slice(at))
    },
    log: () => {},
  })
  proxy.target = stack.lambdaUrl
  const redis = connectRedis({ url: stack.redisUrl })
  const shard = new Keyspace({ prefix: 'sdq', shards: 1, buckets: 16384 }).shards[0]!
  const scan = stack.spec.functionNames.scan!
  const tick = () => invokeFunction(stack.lambdaUrl, scan, { source: 'aws.events', 'detail-type': 'Scheduled Event' })
  const idle = () =>
    until(async () => (await redis.exists(shard.scannerAlive, shard.scanStart)) === 0, 30_000, 'no scan, no start')
  const post = async (delayMs: number) => {
    const t0 = performance.now()
    const res = await fetch(`${stack.apiUrl}/jobs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ queue: 'emails', payload: { bench: true }, delayMs }),
    })
    const ms = performance.now() - t0
    if (res.status !== 201) throw new Error(`POST /jobs: ${res.status} ${await res.text()}`)
    return ms
  }
  /** The next "scan finished" line after `from` that matches. */
  const nextLine = async (from: number, match: (l: ScanLine) => boolean, timeoutMs = 30_000) => {
    let found: ScanLine | undefined
    await until(
      () => {
        found = lines.slice(from).find(match)
        return found !== undefined
      },
      timeoutMs,
      'a scan line',
    )
    return found!
  }
  const enqueueStarted = (l: ScanLine) => l.source === 'sdq.enqueue'
  try {
    await post(0) // the first start of the function (module load) is not a sample
    await idle()

    const afterFault = async (fault: 'lost' | 'throttled') => {
      log(`2. one ${fault} first invoke, ${N.trials} jobs due in 5 s`)
      const late: number[] = []
      for (let i = 0; i < N.trials; i++) {
        await idle()
        proxy.failNext(fault)
        const from = lines.length
        const postedAt = Date.now()
        await post(5_000)
        const line = await nextLine(from, (l) => enqueueStarted(l) && l.dispatched > 0)
        late.push(line.lateness!.max)
        if (line.lateness!.max > 1_000) {
          const invokes = proxy.seen.slice(-3).map((x) => `${x.fault ?? 'passed'} at ${x.at - postedAt} ms`)
          log(
            `  late ${line.lateness!.max} ms: invokes after the POST: ${invokes.join(', ')}; active ${line.activeMs} ms`,
          )
        }
        if ((i + 1) % 20 === 0) log(`  ${i + 1}: p99 so far ${percentiles(late).p99} ms`)
      }
      return percentiles(late)
    }
    const raceTrials = async () => {
      log(`5. the retire race, ${N.race} times`)
      await idle()
      // The tick's invoke, answered once its run has ended: its run's start and retire are in there. The median of
      // five (the first may meet a cold worker).
      const roundTrips: number[] = []
      for (let i = 0; i < 5; i++) {
        const aloneAt = performance.now()
        await tick()
        roundTrips.push(performance.now() - aloneAt)
      }
      const tickRoundTripMs = percentiles(roundTrips).p50
      const trials: { scans: number; overlapMs: number }[] = []
      for (let i = 0; i < N.race; i++) {
        await idle()
        const from = lines.length
        const ticked = tick()
        await sleep(Math.random() * tickRoundTripMs)
        await post(2_000)
        await ticked
        await until(() => lines.slice(from).reduce((n, l) => n + l.dispatched, 0) >= 1, 15_000, 'the job')
        await idle()
        const runs = lines.slice(from)
        const span = (l: ScanLine) => [Date.parse(l.timestamp) - l.activeMs, Date.parse(l.timestamp)] as const
        const [t, e] = [runs.find((l) => !enqueueStarted(l))!, runs.find(enqueueStarted)]
        const overlapMs = e ? Math.max(0, Math.min(span(t)[1], span(e)[1]) - Math.max(span(t)[0], span(e)[0])) : 0
        trials.push({ scans: runs.length, overlapMs })
      }
      return {
        trials: trials.length,
        tickRoundTripMs,
        twoScans: trials.filter((r) => r.scans > 1).length,
        overlapMs: percentiles(trials.map((r) => r.overlapMs)),
      }
    }
    const only = process.argv
      .find((a) => a.startsWith('--only='))
      ?.slice('--only='.length)
      .split(',')
    if (only) {
      // A second look at some phases: their figures replace those of the kept results.
      const again: Record<string, unknown> = {}
      if (only.includes('lost')) again.lateAfterOneLostStartMs = await afterFault('lost')
      if (only.includes('race')) again.retireRace = await raceTrials()
      console.log(JSON.stringify(again, null, 2))
      const file = resolve(process.cwd(), 'bench/results.json')
      const all = JSON.parse(readFileSync(file, 'utf8')) as { onDemandFaults: Record<string, unknown> }
      all.onDemandFaults = { ...all.onDemandFaults, ...again, againAt: new Date().toISOString() }
      writeFileSync(file, `${JSON.stringify(all, null, 2)}\n`)
      return
    }

    log(`1. the write's answer, ${N.latency} POSTs with the invoke passed through, then hanging`)
    const passMs: number[] = []
    for (let i = 0; i < N.latency; i++) {
      await idle()
      passMs.push(await post(0))
    }
    await idle()
    proxy.failAll('hangs')
    const hangMs: number[] = []
    const seenBefore = proxy.seen.length
    for (let i = 0; i < N.latency; i++) {
      await redis.del(shard.scanStart) // a hanging start keeps its guard: let each POST ask
      hangMs.push(await post(0))
      await sleep(20)
    }
    const hangingInvokes = proxy.seen.length - seenBefore
    proxy.failAll(null)
    await idle()

    const lost = await afterFault('lost')
    const throttled = await afterFault('throttled')

    log('3. Lambda throttles every invoke for 30 s; the next tick 10 s after')
    await idle()
    const failedBefore = failedStarts.length
    const from3 = lines.length
    proxy.failAll('throttled')
    const t0 = Date.now()
    let posted = 0
    while (Date.now() - t0 < 30_000) {
      await post(5_000)
      posted++
      await sleep(3_000)
    }
    proxy.failAll(null)
    const throttleEndedAt = Date.now()
    await sleep(Math.max(0, t0 + 40_000 - Date.now()))
    const tickAt = Date.now()
    await tick()
    await until(
      async () => lines.slice(from3).reduce((n, l) => n + l.dispatched, 0) >= posted,
      30_000,
      'every job of the throttling',
    )
    const throttling = lines.slice(from3).filter((l) => l.dispatched > 0)
    const throttlingLate = Math.max(...throttling.map((l) => l.lateness?.max ?? 0))
    await idle()

    log(`4. a run started by an enqueue meets a tick, ${N.meets} times`)
    const meets: { overlapMs: number; handedOver: boolean }[] = []
    for (let i = 0; i < N.meets; i++) {
      await idle()
      const from = lines.length
      await post(8_000)
      await until(async () => (await redis.exists(shard.scannerAlive)) === 1, 10_000, 'the started run')
      await sleep(1_000 + Math.random() * 3_000)
      const at = Date.now()
      const ticked = tick()
      const e = await nextLine(from, enqueueStarted)
      meets.push({ overlapMs: Date.parse(e.timestamp) - at, handedOver: Boolean(e.handedOverTo) })
      await ticked
    }

    const race = await raceTrials()

    const result = {
      date: new Date().toISOString(),
      mode: quick ? 'quick' : 'full',
      answerMs: {
        invokePassed: percentiles(passMs),
        invokeHanging: percentiles(hangMs),
        hangingInvokes,
        p99DifferenceMs: percentiles(hangMs).p99 - percentiles(passMs).p99,
      },
      lateAfterOneLostStartMs: lost,
      lateAfterOneThrottledStartMs: throttled,
      throttling30s: {
        jobs: posted,
        latestJobLateMs: throttlingLate,
        dispatchedBy: throttling.map((l) => l.source),
        tickAfterThrottleMs: tickAt - throttleEndedAt,
        failedStartLines: failedStarts.length - failedBefore,
        lastFailedStartLine: failedStarts.at(-1) ?? null,
      },
      enqueueRunMeetsTick: {
        overlapMs: percentiles(meets.map((m) => m.overlapMs)),
        handedOver: meets.filter((m) => m.handedOver).length,
        trials: meets.length,
      },
      retireRace: race,
      seconds: (Date.now() - started) / 1000,
    }
    console.log(JSON.stringify(result, null, 2))
    const file = resolve(process.cwd(), 'bench/results.json')
    const all = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>
    writeFileSync(file, `${JSON.stringify({ ...all, onDemandFaults: result }, null, 2)}\n`)
  } finally {
    redis.disconnect()
    await stack.stop()
    await proxy.close()
  }
}

runMain(main)
