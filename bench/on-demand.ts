// `npm run bench:on-demand [-- --quick]`: on-demand scan mode on the local stack (serverless-offline, the real
// handlers, the API starting the scan function through the Lambda endpoint, fauxqs, a private redis-server), and
// the continuous mode's scan for comparison. Writes the `onDemand` section of bench/results.json.
//
// 1. Precision: JOBS times, one after the other, a job is enqueued through the API with a 5 s delay while no scanner
//    runs (the alive marker is gone); its lateness is what the scan function reports (time SQS accepted it - due
//    time, on Redis's clock). The first start of the function (module load in a fresh worker) is reported apart.
//    The reference, measured right after each job from this process: one SendMessageBatch of one message to the same
//    local SQS endpoint. A dispatch can be no faster than that round trip, and on a loaded machine it is most of it.
//    Each job's lateness is split as the scan reports it (latenessParts): the claim's part (Redis's time at the claim
//    - due) and the SendMessageBatch call's; lateness minus the call is what the scanner itself added.
//    Then the same for jobs due 2 s after their enqueue (SHORT_DELAY_MS): the default scan mode's precision for the
//    shortest delay it promises on time (a start, warm or cold, takes well under that).
//    The warm-up (src/scan/dispatch/warm-up.ts): the first job send of a cold start (a fresh process), without and with an
//    empty-batch warm-up before it, alternating.
// 2. The sparse workload (one job every 5 minutes), time-compressed: in on-demand mode nothing runs between a scan
//    that ended and the next job or tick (the alive marker proves it), so an hour is the sum of its invocations:
//    12 job-started ones (measured in step 1: the handler's whole duration, 5 s wait included) and 60 scheduled ones
//    that find nothing due (measured here by invoking the function as EventBridge would). The gaps are skipped, not
//    shortened; nothing else is scaled. Continuous mode: one scheduled invocation with the deployed 70 s timeout,
//    and the next tick's invocation 60 s after it, to which it hands over (src/scan/run/relay.ts): its active time,
//    measured, times 60.
import { sleep } from '../devkit/sleep'
import { SendMessageBatchCommand } from '@aws-sdk/client-sqs'
import { execFile } from 'node:child_process'
import { readFileSync, writeFileSync } from 'node:fs'
import { promisify } from 'node:util'
import { resolve } from 'node:path'
import { startDevStack, type DevStack } from '../local/dev-stack'
import { invokeFunction } from '../tools/sdq-poll/invoke-function'
import { Keyspace } from '../src/store/keys'
import { SqsWarmUp } from '../src/scan/dispatch/warm-up'
import { createSqsClient } from '../src/sqs/sqs-client'
import { connectRedis } from '../src/store/redis/redis'
import { percentiles, median } from '../devkit/stats'
import { runMain } from './main'
import { until } from './until'

const quick = process.argv.includes('--quick')
const size = quick
  ? { jobs: 20, shortJobs: 10, emptyTicks: 5, freshClients: 5 }
  : { jobs: 200, shortJobs: 100, emptyTicks: 30, freshClients: 20 }
const DELAY_MS = 5_000
const SHORT_DELAY_MS = 2_000
const TARGETS = { p99LateMs: 10, activeShare: 0.02 }
const log = (msg: string) => console.error(`[bench:on-demand ${new Date().toISOString().slice(11, 19)}] ${msg}`)

interface ScanLine {
  msg: string
  timestamp: string
  handedOverTo?: string | null
  source?: string
  activeMs: number
  endedEarly?: boolean
  dispatched: number
  lateness: { p50: number; p99: number; max: number } | null
  latenessParts?: { claim: { max: number }; send: { max: number } } | null
}

/** One job-started scan's figures (ms): its one job's lateness and parts, and the reference send after it. */
interface JobRun {
  late: number
  claimLate: number
  sendMs: number
  lateMinusSend: number
  rawSendMs: number
  activeMs: number
  startMs: number
}

/** The local stack with the scan function's "scan finished" lines collected. */
async function stackFor(mode: string, extraEnv: Record<string, string> = {}) {
  const lines: ScanLine[] = []
  const stack: DevStack = await startDevStack({
    persist: false,
    env: { SCAN_MODE: mode, ...extraEnv },
    scanTickMs: 0,
    onOutput: (line) => {
      const at = line.indexOf('{"level"')
      if (at >= 0 && line.includes('"scan finished"')) lines.push(JSON.parse(line.slice(at)) as ScanLine)
    },
    log: () => {},
  })
  return { stack, lines }
}

async function onDemandRuns() {
  const { stack, lines } = await stackFor('on-demand')
  const redis = connectRedis({ url: stack.redisUrl })
  const sqs = createSqsClient({ region: 'us-east-1', sqsEndpoint: stack.sqsEndpoint, sendConcurrency: 1 })
  const rawSendMs = async () => {
    const t = performance.now()
    await sqs.send(
      new SendMessageBatchCommand({
        QueueUrl: stack.queues.emails!,
        Entries: [{ Id: 'r', MessageBody: '{"ref":true}' }],
      }),
    )
    return performance.now() - t
  }
  const alive = new Keyspace({ prefix: 'sdq', shards: 1, buckets: 16384 }).shards[0]!.scannerAlive
  const post = async (delayMs: number) => {
    const res = await fetch(`${stack.apiUrl}/jobs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ queue: 'emails', payload: { bench: true }, delayMs }),
    })
    if (res.status !== 201) throw new Error(`POST /jobs: ${res.status} ${await res.text()}`)
  }
  /** One job while no scanner runs; returns the started invocation's line and the measured start (ms). */
  const oneJob = async (delayMs: number) => {
    await until(async () => (await redis.exists(alive)) === 0, 30_000, 'no scanner alive')
    const before = lines.length
    const t0 = performance.now()
    await post(delayMs)
    await until(async () => (await redis.exists(alive)) === 1, 30_000, 'the started scanner')
    const startMs = performance.now() - t0
    await until(() => lines.length > before, delayMs + 30_000, 'the scan to finish')
    const line = lines[before]!
    if (line.source !== 'sdq.enqueue' || line.dispatched !== 1)
      throw new Error(`unexpected scan: ${JSON.stringify(line)}`)
    return { line, startMs }
  }
  try {
    const first = await oneJob(0)
    log(
      `first start (fresh worker): ${first.startMs.toFixed(0)} ms to the alive marker, job ${first.line.lateness?.max} ms late`,
    )
    const warm = await oneJob(0)
    log(`warm start: ${warm.startMs.toFixed(0)} ms, job ${warm.line.lateness?.max} ms late`)
    const jobs: JobRun[] = []
    for (let i = 0; i < size.jobs; i++) {
      const { line, startMs } = await oneJob(DELAY_MS)
      const late = line.lateness!.max
      const { claim, send } = line.latenessParts!
      const rawMs = round1(await rawSendMs())
      jobs.push({
        late,
        claimLate: claim.max,
        sendMs: send.max,
        lateMinusSend: late - send.max,
        rawSendMs: rawMs,
        activeMs: line.activeMs,
        startMs,
      })
      if ((i + 1) % 20 === 0)
        log(
          `${i + 1}/${size.jobs} jobs: p99 so far ${percentiles(jobs.map((j) => j.late)).p99} ms (late - send: ${percentiles(jobs.map((j) => j.lateMinusSend)).p99} ms)`,
        )
    }
    const shortJobs: number[] = []
    for (let i = 0; i < size.shortJobs; i++) shortJobs.push((await oneJob(SHORT_DELAY_MS)).line.lateness!.max)
    log(`${SHORT_DELAY_MS / 1000} s delay, ${shortJobs.length} jobs: p99 ${percentiles(shortJobs).p99} ms`)
    const ticks: number[] = []
    for (let i = 0; i < size.emptyTicks; i++) {
      await until(async () => (await redis.exists(alive)) === 0, 30_000, 'no scanner alive')
      const before = lines.length
      await invokeFunction(stack.lambdaUrl, stack.spec.functionNames.scan!, {
        source: 'aws.events',
        'detail-type': 'Scheduled Event',
      })
      await until(() => lines.length > before, 10_000, 'the tick to finish')
      ticks.push(lines[before]!.activeMs)
    }
    const firstSend = await firstSends(stack.sqsEndpoint, stack.queues.emails!)
    return { first, warm, jobs, shortJobs, ticks, firstSend }
  } finally {
    sqs.destroy()
    await redis.quit()
    await stack.stop()
  }
}

const round1 = (ms: number) => Math.round(ms * 10) / 10
const run = promisify(execFile)

/**
 * The first job send of a cold start: each sample is a fresh process (SDK code never run, no connection), as in a
 * new Lambda environment. Without and with a warm-up before it, alternating.
 */
async function firstSends(endpoint: string, queueUrl: string) {
  const fresh: number[] = []
  const warmedUp: number[] = []
  for (let i = 0; i < 2 * size.freshClients; i++) {
    const warmFirst = i % 2 === 1
    const { stdout } = await run(process.execPath, [
      process.argv[1]!,
      FIRST_SEND,
      endpoint,
      queueUrl,
      String(warmFirst),
    ])
    ;(warmFirst ? warmedUp : fresh).push(Number(stdout.trim()))
  }
  return { fresh: percentiles(fresh), warmedUp: percentiles(warmedUp) }
}

/** In a child process: one fresh client's first job send (ms on stdout), after a warm-up when asked. */
async function firstSend([endpoint, queueUrl, warmFirst]: string[]) {
  const sqs = createSqsClient({ region: 'us-east-1', sqsEndpoint: endpoint!, sendConcurrency: 1 })
  if (warmFirst === 'true') await new SqsWarmUp(sqs, [queueUrl!]).warm()
  const t = performance.now()
  await sqs.send(
    new SendMessageBatchCommand({ QueueUrl: queueUrl, Entries: [{ Id: 'f', MessageBody: '{"ref":true}' }] }),
  )
  console.log(round1(performance.now() - t))
  sqs.destroy()
}

/**
 * Continuous mode as deployed (70 s timeout, 4 s safety margin), with its next tick: a second invocation 60 s after
 * the first took over, as EventBridge's next minute. The first hands over to it (src/scan/run/relay.ts); its active time
 * is what a minute of continuous mode bills, and how long it scanned beside the second is the relay's overlap.
 */
async function continuousRun() {
  const { stack, lines } = await stackFor('continuous', { SAFETY_MARGIN_MS: '4000' })
  const redis = connectRedis({ url: stack.redisUrl })
  const relayKey = new Keyspace({ prefix: 'sdq', shards: 1, buckets: 16384 }).scanRelayKey
  // The bench's own ticks (the stack's are off): this one, and the next a minute after it took over.
  const firstTick = invokeFunction(stack.lambdaUrl, stack.spec.functionNames.scan!, {
    source: 'bench.tick',
    'detail-type': 'Scheduled Event',
  }).catch(() => {})
  try {
    await until(async () => (await redis.get(relayKey)) !== null, 120_000, 'the first continuous scan')
    const firstUp = Date.now()
    await sleep(60_000)
    const tickAt = Date.now()
    const tick = invokeFunction(stack.lambdaUrl, stack.spec.functionNames.scan!, {
      source: 'bench.tick',
      'detail-type': 'Scheduled Event',
    }).catch(() => {})
    await until(() => lines.length > 0, 30_000, 'the first run to end')
    const first = lines[0]!
    const endedAt = Date.parse(first.timestamp)
    void tick
    void firstTick
    return {
      activeMs: first.activeMs,
      handedOverTo: first.handedOverTo ?? null,
      /** From the second invocation's start to the first one's end. */
      overlapMs: endedAt - tickAt,
      /** From the first one taking over to its end (its start is a few ms before). */
      upMs: endedAt - firstUp,
    }
  } finally {
    redis.disconnect()
    await stack.stop()
  }
}

async function main() {
  const started = Date.now()
  const od = await onDemandRuns()
  log('continuous mode: one scheduled invocation and its successor a minute later (about 62 s)')
  const continuous = await continuousRun()
  const continuousMs = continuous.activeMs
  const late = percentiles(od.jobs.map((j) => j.late))
  const shortLate = percentiles(od.shortJobs)
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length
  const jobActiveS = mean(od.jobs.map((j) => j.activeMs)) / 1000
  const tickActiveS = mean(od.ticks) / 1000
  const perHour = { onDemand: 12 * jobActiveS + 60 * tickActiveS, continuous: (60 * continuousMs) / 1000 }
  const share = perHour.onDemand / perHour.continuous
  const result = {
    date: new Date().toISOString(),
    mode: quick ? 'quick' : 'full',
    delayMs: DELAY_MS,
    jobs: od.jobs.length,
    lateness: late,
    /** Jobs due SHORT_DELAY_MS after their enqueue, no scanner running: the same measure. */
    shortDelay: { delayMs: SHORT_DELAY_MS, jobs: od.shortJobs.length, lateness: shortLate },
    rawSendMs: percentiles(od.jobs.map((j) => j.rawSendMs)),
    latenessParts: {
      claim: percentiles(od.jobs.map((j) => j.claimLate)),
      send: percentiles(od.jobs.map((j) => j.sendMs)),
      lateMinusSend: percentiles(od.jobs.map((j) => j.lateMinusSend)),
    },
    /** The latest jobs, with their parts and the reference send measured right after them. */
    tail: [...od.jobs]
      .sort((a, b) => b.late - a.late)
      .slice(0, 5)
      .map(({ late, claimLate, sendMs, rawSendMs }) => ({ late, claimLate, sendMs, rawSendMs })),
    firstSendMs: od.firstSend,
    startMs: { first: od.first.startMs, warm: od.warm.startMs, median: median(od.jobs.map((j) => j.startMs)) },
    firstJobLateMs: od.first.line.lateness?.max ?? null,
    firstJobParts: od.first.line.latenessParts ?? null,
    jobInvocationActiveS: { mean: jobActiveS, median: median(od.jobs.map((j) => j.activeMs)) / 1000 },
    emptyTickActiveS: { mean: tickActiveS, median: median(od.ticks) / 1000, count: od.ticks.length },
    continuousInvocationS: continuousMs / 1000,
    continuousRelay: { handedOverTo: continuous.handedOverTo, overlapMs: continuous.overlapMs },
    sparseActiveSecondsPerHour: perHour,
    sparseActiveShare: share,
    targets: TARGETS,
    met: {
      p99: late.p99 <= TARGETS.p99LateMs,
      p99ShortDelay: shortLate.p99 <= TARGETS.p99LateMs,
      activeShare: share <= TARGETS.activeShare,
    },
    seconds: (Date.now() - started) / 1000,
  }
  console.log(JSON.stringify(result, null, 2))
  const file = resolve(process.cwd(), 'bench/results.json')
  const all = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>
  writeFileSync(file, `${JSON.stringify({ ...all, onDemand: result }, null, 2)}\n`)
}

const FIRST_SEND = '--first-send'
const at = process.argv.indexOf(FIRST_SEND)
runMain(() => (at > 0 ? firstSend(process.argv.slice(at + 1)) : main()))
