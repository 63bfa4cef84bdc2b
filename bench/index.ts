// `npm run bench [-- --quick]`: every figure of docs/benchmarks.md, measured in one run on this machine, against a
// private redis-server and a fauxqs process that this run starts on free loopback ports and stops at the end.
//
// Why references are measured here and not quoted: the machine is shared and noisy (2 cores), so absolute rates
// drift from run to run. Ratios against a raw reference taken in the same run, interleaved repetition by
// repetition, are what stay comparable. Rates are medians over repetitions where a repetition is cheap.
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { cpus, loadavg } from 'node:os'
import { resolve } from 'node:path'
import { measureBurst, type BurstResult } from './burst'
import { ENQUEUE_BATCH, ENQUEUE_BATCHES_IN_FLIGHT, measureEnqueue } from './enqueue'
import { info, startBenchEnv } from './env'
import { runMain } from './main'
import { measureIdle } from './idle'
import { SPREAD_MS, measureLateness } from './lateness'
import { measureMemory } from './memory'
import { measureRawRedis, type RawRedisResult } from './raw-redis'
import { measureRawSqs, type RawSqsResult } from './raw-sqs'
import { median } from '../devkit/stats'
import { fmt, printTable, type Row } from './table'
import { measureTagMemory, tagMemoryRows } from './tag-memory'

const quick = process.argv.includes('--quick')
const size = quick
  ? {
      reps: 1,
      rawCalls: 20_000,
      enqueueJobs: 20_000,
      sqsMessages: 5_000,
      latenessJobs: 5_000,
      burstJobs: 5_000,
      idleSeconds: 4,
      memoryJobs: 250_000,
      memoryBuckets: 4_096,
      tagJobs: 100_000,
    }
  : {
      reps: 3,
      rawCalls: 100_000,
      enqueueJobs: 100_000,
      sqsMessages: 40_000,
      latenessJobs: 20_000,
      burstJobs: 20_000,
      idleSeconds: 10,
      memoryJobs: 1_000_000,
      memoryBuckets: undefined,
      tagJobs: 300_000,
    }

/** Untimed rounds (a raw run and a burst each) before the timed repetitions of the burst share: see below. */
const WARM_ROUNDS = 3

const TARGETS = { enqueueRatio: 0.6, p50: 3, p99: 10, burstShare: 0.8, bytesPerJob: 350, idleCommands: 5 }

const log = (msg: string) => console.error(`[bench ${new Date().toISOString().slice(11, 19)}] ${msg}`)

async function main() {
  const started = Date.now()
  const load = [loadavg()[0]!]
  const env = await startBenchEnv()
  try {
    const machine = {
      date: new Date().toISOString(),
      node: process.version,
      redis: (await info(env.admin, 'server')).redis_version,
      cpus: cpus().length,
      cpuModel: cpus()[0]?.model ?? 'unknown',
      mode: quick ? 'quick' : 'full',
    }
    console.log(
      `machine: node ${machine.node}, redis ${machine.redis}, ${machine.cpus} cpus (${machine.cpuModel}), mode ${machine.mode}`,
    )
    // `--only=tags`: the tag rows alone (a minute, where the whole run takes many).
    if (process.argv.includes('--only=tags')) {
      console.log(printTable(tagMemoryRows(await measureTagMemory(env, size.tagJobs))))
      return
    }
    // `--only=idle`: the idle scanner's Redis commands alone.
    if (process.argv.includes('--only=idle')) {
      const idle = await measureIdle(env, size.idleSeconds)
      console.log(`idle: ${idle.commandsPerSec.toFixed(2)} commands/s ${JSON.stringify(idle.breakdown)}`)
      return
    }

    // 1. Enqueue vs raw EVALSHA, interleaved so both see the same background load.
    const raw: RawRedisResult[] = []
    const lib: number[] = []
    // The order alternates so that warm-up drift (JIT, allocator) favours neither side.
    for (let rep = 0; rep < size.reps; rep++) {
      if (rep % 2) lib.push(await measureEnqueue(env, size.enqueueJobs, rep))
      raw.push(await measureRawRedis(env, size.rawCalls, rep))
      if (rep % 2 === 0) lib.push(await measureEnqueue(env, size.enqueueJobs, rep))
      log(`redis rep ${rep + 1}: raw ${fmt.rate(raw.at(-1)!.callsPerSec)}, enqueueMany ${fmt.rate(lib.at(-1)!)}`)
    }
    const rawRate = median(raw.map((r) => r.callsPerSec))
    const libRate = median(lib)
    const enqueueRatio = median(lib.map((l, i) => l / raw[i]!.callsPerSec))

    // 2. Burst drain vs raw SendMessageBatch, interleaved likewise.
    const sqs: RawSqsResult[] = []
    const bursts: BurstResult[] = []
    // Alternating order here matters more: fauxqs kept speeding up over the first minute in trials, and a first
    // repetition against a cold fauxqs read 9.9k/s against 15-16k/s after.
    //
    // Untimed rounds come first, each an untimed raw run and an untimed burst: the same treatment in kind on both
    // sides. What the share judges is a warm scan function (its code compiled over the life of its Lambda environment),
    // not this process's JIT at work. With one such round, as until 2026-11-26, the third repetition was the fastest in
    // every run: V8 was still compiling through the first four bursts (Maglev and Turbofan compiles per burst,
    // --trace-opt: 200-310 in the first, 90-135 in the second, 65-100 in the third, 20-55 from the fourth on), and this
    // process's CPU per burst job fell from medians of 47-48 µs (repetition 1) and 43-49 (repetition 2) to 38-41
    // (repetition 3); the raw side, less code, from 38-46 to 30-31 µs a message; fauxqs's CPU per message from 25-30 to
    // 13-15 µs over its first four phases. With three rounds every timed burst ran at 35-40 µs a job, the raw side at
    // 28-33 (medians over 3-4 processes per variant, alternated, bench/burst-reps.ts, load 5-20). Keeping one engine and
    // SQS client for every burst, as the scan function does, did not lower it: new ones are still built per burst.
    const untimed: BurstResult[] = []
    for (let w = 0; w < WARM_ROUNDS; w++) {
      await measureRawSqs(env, size.sqsMessages / 2, 99 - 2 * w)
      untimed.push(await measureBurst(env, size.burstJobs, 98 - 2 * w))
      log(`untimed round ${w + 1}: burst's last in SQS after ${untimed[w]!.lastInSqsMs} ms`)
    }
    const coldBurst = untimed[0]!
    for (let rep = 0; rep < size.reps; rep++) {
      if (rep % 2) bursts.push(await measureBurst(env, size.burstJobs, rep))
      sqs.push(await measureRawSqs(env, size.sqsMessages, rep))
      if (rep % 2 === 0) bursts.push(await measureBurst(env, size.burstJobs, rep))
      const b = bursts.at(-1)!
      log(
        `sqs rep ${rep + 1}: raw ${fmt.rate(sqs.at(-1)!.messagesPerSec)}, burst drain ${fmt.rate(b.drainPerSec)} (last in SQS after ${b.lastInSqsMs} ms, ${b.inQueue} in queue)`,
      )
    }
    const sqsRate = median(sqs.map((s) => s.messagesPerSec))
    const burstShare = median(bursts.map((b, i) => b.drainPerSec / sqs[i]!.messagesPerSec))
    const burstLast = median(bursts.map((b) => b.lastInSqsMs))
    const burstDrain = median(bursts.map((b) => b.drainPerSec))

    // 3. Lateness of a steady stream.
    const late = await measureLateness(env, size.latenessJobs)
    log(
      `lateness: p50 ${late.p50} p90 ${late.p90} p99 ${late.p99} max ${late.max} ms over ${late.count} jobs (${late.inQueue} in queue, ${late.claims} claims)`,
    )

    // 4. Idle cost.
    const idle = await measureIdle(env, size.idleSeconds)
    log(`idle: ${idle.commandsPerSec.toFixed(2)} commands/s ${JSON.stringify(idle.breakdown)}`)

    // 5. Memory per pending job (last: it is the biggest load, and the server is stopped right after).
    const mem = await measureMemory(env, size.memoryJobs, size.memoryBuckets)
    log(`memory: ${mem.bytesPerJob.toFixed(1)} bytes/job over ${mem.jobs} jobs, loaded at ${fmt.rate(mem.loadPerSec)}`)

    // 6. What tags add per job: 0, 1 and 3 tags.
    const tagMemory = await measureTagMemory(env, size.tagJobs)
    log(`tags: ${tagMemory.map((t) => `${t.tags}: ${t.bytesPerJob.toFixed(1)} B/job`).join(', ')}`)

    load.push(loadavg()[0]!)
    const reps = size.reps > 1 ? `median of ${size.reps}` : '1 run'
    const rows: Row[] = [
      {
        measure: 'raw Redis EVALSHA (ZADD+HSET script, 50 in flight)',
        value: fmt.rate(rawRate),
        note: `${reps}, ${fmt.int(size.rawCalls)} calls each`,
      },
      {
        measure: `raw SQS SendMessageBatch (10 x ${sqs[0]!.messageBytes} B, ${sqs[0]!.concurrency} in flight)`,
        value: fmt.rate(sqsRate),
        note: `${reps}, messages/s`,
      },
      {
        measure: `enqueue (enqueueMany, batches of ${ENQUEUE_BATCH}, ${ENQUEUE_BATCHES_IN_FLIGHT} in flight)`,
        value: fmt.rate(libRate),
        note: `${reps}, ${fmt.int(size.enqueueJobs)} jobs each`,
      },
      {
        measure: 'enqueue / raw EVALSHA',
        value: fmt.pct(enqueueRatio),
        target: `>= ${fmt.pct(TARGETS.enqueueRatio)}`,
        met: enqueueRatio >= TARGETS.enqueueRatio,
        note: 'median of per-rep ratios',
      },
      ...(['p50', 'p90', 'p99', 'max'] as const).map(
        (p): Row => ({
          measure: `lateness ${p} (${fmt.int(late.count)} jobs over ${SPREAD_MS / 1000} s)`,
          value: fmt.ms(late[p]),
          ...(p === 'p50' ? { target: `<= ${TARGETS.p50} ms`, met: late.p50 <= TARGETS.p50 } : {}),
          ...(p === 'p99' ? { target: `<= ${TARGETS.p99} ms`, met: late.p99 <= TARGETS.p99 } : {}),
          note: p === 'p50' ? 'SQS accepted (onSent) - due, Redis clock' : '',
        }),
      ),
      { measure: `burst of ${fmt.int(size.burstJobs)}: last in SQS after`, value: fmt.ms(burstLast), note: reps },
      { measure: 'burst drain rate', value: fmt.rate(burstDrain), note: reps },
      {
        measure: 'first burst in the process: last in SQS after',
        value: fmt.ms(coldBurst.lastInSqsMs),
        note: 'JIT cold; not in the share',
      },
      {
        measure: 'burst drain / raw SQS rate',
        value: fmt.pct(burstShare),
        target: `>= ${fmt.pct(TARGETS.burstShare)}`,
        met: burstShare >= TARGETS.burstShare,
        note: 'median of per-rep ratios',
      },
      {
        measure: `bytes per pending job (${fmt.int(mem.jobs)} jobs, ${fmt.int(mem.buckets)} buckets)`,
        value: mem.bytesPerJob.toFixed(1),
        target: `<= ${TARGETS.bytesPerJob}`,
        met: mem.bytesPerJob <= TARGETS.bytesPerJob,
        note: `buckets ${mem.bucketEncoding}${quick ? '; quick: not the target size' : ''}`,
      },
      ...tagMemoryRows(tagMemory),
      {
        measure: `bare ZSET+HASH bytes per job (${fmt.int(size.rawCalls)} jobs)`,
        value: median(raw.map((r) => r.bytesPerJob)).toFixed(1),
        note: 'reference, from the raw EVALSHA runs',
      },
      {
        measure: `idle scanner Redis commands/s (${idle.seconds.toFixed(1)} s)`,
        value: idle.commandsPerSec.toFixed(2),
        target: `<= ${TARGETS.idleCommands}`,
        met: idle.commandsPerSec <= TARGETS.idleCommands,
        note: Object.entries(idle.breakdown)
          .map(([c, n]) => `${c} ${n.toFixed(1)}`)
          .join(', '),
      },
    ]
    console.log(printTable(rows))
    const targeted = rows.filter((r) => r.met !== undefined)
    console.log(
      `targets met: ${targeted.filter((r) => r.met).length}/${targeted.length}` +
        (targeted.some((r) => !r.met)
          ? `; missed: ${targeted
              .filter((r) => !r.met)
              .map((r) => r.measure)
              .join('; ')}`
          : ''),
    )
    console.log(
      `load average (1 min) at start ${load[0]!.toFixed(2)}, at end ${load[1]!.toFixed(2)}; took ${((Date.now() - started) / 1000).toFixed(0)} s`,
    )

    const results = {
      machine: {
        ...machine,
        loadAverageStart: load[0],
        loadAverageEnd: load[1],
        seconds: (Date.now() - started) / 1000,
      },
      sizes: size,
      targets: TARGETS,
      raw: { redis: raw, sqs },
      enqueue: { perRep: lib, median: libRate, ratio: enqueueRatio },
      lateness: late,
      burst: { perRep: bursts, cold: coldBurst, lastInSqsMs: burstLast, drainPerSec: burstDrain, share: burstShare },
      memory: mem,
      tagMemory,
      idle,
      rows,
    }
    // The sections other bench scripts write (bench:right-size, bench:on-demand, bench:lambda-size) stay until those
    // scripts run again: this run replaces only its own.
    const file = resolve(process.cwd(), 'bench/results.json')
    const previous = existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>) : {}
    writeFileSync(file, `${JSON.stringify({ ...previous, ...results }, null, 2)}\n`)
  } finally {
    await env.stop()
  }
}

runMain(main)
