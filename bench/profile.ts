// Diagnostics of where a benchmark's time goes (a per-call and per-job CPU breakdown): not part of `npm run bench`.
//   node scripts/run-ts.mjs bench/profile.ts redis     Redis-side cost per call (INFO commandstats) of the bare
//                                                      script vs the real enqueue script, and the client's share
//   node scripts/run-ts.mjs bench/profile.ts sqs       raw SendMessageBatch rate, 5 times in a row (warm-up drift)
//   node scripts/run-ts.mjs bench/profile.ts lateness  the lateness scenario with Redis commandstats and the
//   node scripts/run-ts.mjs bench/profile.ts split     the lateness scenario with each job's lateness split into
//                                                      claim (Redis time at claim - due) and send (accepted - claim),
//                                                      plus SendMessageBatch calls, entries per call, round trips
//   node scripts/run-ts.mjs bench/profile.ts burst     CPU seconds per 10,000 messages in each process (bench/scanner,
//                                                      redis-server, fauxqs) for the raw SQS reference vs the burst
//   node scripts/run-ts.mjs bench/profile.ts drain N   the scanner's own CPU per job while it drains N jobs due at
//                                                      once (enqueued before, not counted): µs per job, 3 runs
//                                                      (DRAIN_CPU_PROFILE=prefix: V8 profiles; DRAIN_PERF_CTL=fifo:
//                                                      perf record's control, to sample the drains only, or with
//                                                      DRAIN_PERF_RAW=1 the raw reference's sends only; DRAIN_REUSE=1:
//                                                      one engine and SQS client for all 3, as the scan function keeps
//                                                      them, not new ones per drain as npm run bench's bursts)
//   node scripts/run-ts.mjs bench/profile.ts share     npm run bench's burst share alone: raw SendMessageBatch rate and
//                                                      a 20,000-job burst drain, interleaved, 3 times
//   node scripts/run-ts.mjs bench/profile.ts scripts N Redis's CPU per job for the claims, then for the acks (with
//                                                      receipts), of N jobs due at one millisecond, no SQS: 3 runs
//   node scripts/run-ts.mjs bench/profile.ts stream    Redis's cost of a steady stream's claim (one due job a claim)
//                                                      on a shard of 100,000 pending jobs in 1,024 buckets (~100 each)
//   node scripts/run-ts.mjs bench/profile.ts claim     cost of one claim on a shard with nothing due, by how many
//                                                      bucket hints it carries in KEYS and returns (src/scan/claims/leases.ts
//                                                      sends max(limit, 16) = 250 with the shipped defaults)
import { sleep } from '../devkit/sleep'
import { randomUUID } from 'node:crypto'
import { readdirSync, writeFileSync } from 'node:fs'
import { commandCalls, flush, info, processCpuSeconds, startBenchEnv, type BenchEnv } from './env'
import { runMain } from './main'
import { measureBurst } from './burst'
import { measureEnqueue } from './enqueue'
import { measureLateness } from './lateness'
import { measureRawRedis } from './raw-redis'
import { measureRawSqs } from './raw-sqs'
import { scanParts, startScanning } from './scanning'
import { fmt } from './table'
import { Dispatcher } from '../src/scan/dispatch/dispatcher'
import { SQS_SDK_ATTEMPTS, sendTimeoutMs } from '../src/sqs/sqs-client'
import { Leases } from '../src/scan/claims/leases'
import type { ClaimedJob } from '../src/scan/claims/claimed-job'
import { Scanner } from '../src/scan/loop/scanner'
import { runScript, type ScriptedClient } from '../src/store/scripts'
import { claimCall } from '../src/store/scripts/claim'
import { percentiles } from '../devkit/stats'
import { benchJob, jobId } from './data'
import { Keyspace } from '../src/store/keys'
import { connectRedis } from '../src/store/redis/redis'
import { JobStore } from '../src/store/job-store'
import { NO_REPLICA_WAIT } from '../src/store/redis/replication'

async function commandUsec(env: BenchEnv): Promise<Record<string, { calls: number; usec: number }>> {
  const out: Record<string, { calls: number; usec: number }> = {}
  for (const [k, v] of Object.entries(await info(env.admin, 'commandstats'))) {
    const m = /calls=(\d+),usec=(\d+)/.exec(v)
    if (m) out[k.replace(/^cmdstat_/, '')] = { calls: Number(m[1]), usec: Number(m[2]) }
  }
  return out
}

async function redisCpuSeconds(env: BenchEnv): Promise<number> {
  const cpu = await info(env.admin, 'cpu')
  return Number(cpu.used_cpu_user) + Number(cpu.used_cpu_sys)
}

async function withRedisProfile<T>(env: BenchEnv, label: string, n: number, fn: () => Promise<T>): Promise<T> {
  await env.admin.config('RESETSTAT')
  const cpu0 = await redisCpuSeconds(env)
  const t0 = performance.now()
  const clientCpu0 = process.cpuUsage()
  const result = await fn()
  const clientCpu = process.cpuUsage(clientCpu0)
  const wall = (performance.now() - t0) / 1000
  const cpu = (await redisCpuSeconds(env)) - cpu0
  const stats = await commandUsec(env)
  console.log(
    `${label}: wall ${wall.toFixed(2)} s; redis-server CPU ${cpu.toFixed(2)} s (${((cpu / wall) * 100).toFixed(0)}% of a core); ` +
      `bench process CPU ${((clientCpu.user + clientCpu.system) / 1e6).toFixed(2)} s`,
  )
  for (const [cmd, s] of Object.entries(stats).sort((a, b) => b[1].usec - a[1].usec)) {
    if (cmd === 'info' || cmd === 'config') continue
    console.log(
      `  ${cmd.padEnd(10)} ${String(s.calls).padStart(8)} calls  ${(s.calls / n).toFixed(2)}/job  ${(s.usec / s.calls).toFixed(2)} us/call  ${(s.usec / n).toFixed(2)} us/job`,
    )
  }
  return result
}

async function claimCost(env: BenchEnv) {
  const config = env.config('http://127.0.0.1/unused')
  const redis = connectRedis(config.redis)
  const keys = new Keyspace({ prefix: config.keyPrefix, shards: 1, buckets: config.dueBuckets })
  const store = new JobStore(redis, keys, undefined, NO_REPLICA_WAIT)
  const shard = keys.shards[0]!
  for (let i = 0; i < 100_000; i += 1_000) {
    await store.enqueueMany(
      Array.from({ length: 1_000 }, (_, k) => benchJob(jobId('c', i + k), { delayMs: 3_600_000 + i + k })),
    )
  }
  for (const hintCount of [250, 64, 16, 250, 64, 16]) {
    const hints = await redis.zrange(shard.index, '0', String(hintCount - 1))
    const n = 2_000
    await env.admin.config('RESETSTAT')
    const t0 = performance.now()
    for (let i = 0; i < n; i++)
      await runScript(
        redis,
        claimCall(shard, {
          limit: 250,
          leaseMs: 30_000,
          token: 'tok',
          maxAttempts: 10,
          hintCap: hintCount,
          lookaheadMs: 25,
          fullCount: 0,
          fullBy: 0,
          windowMs: 0,
          hints,
        }),
      )
    const wall = (performance.now() - t0) / n
    const evalsha = (await commandUsec(env)).evalsha!
    console.log(
      `claim with ${hintCount} hints in and out: ${(evalsha.usec / evalsha.calls).toFixed(1)} us in Redis, ${(wall * 1000).toFixed(0)} us round trip`,
    )
  }
  await redis.quit()
}

/** The scanner as createScanner wires it, with the claim and the SQS client instrumented. */
async function latenessSplit(env: BenchEnv, jobs: number) {
  const { queue, config, engine, sqs } = await scanParts(env, 'split')
  const claimLate = new Map<string, number>()
  const claimSizes: number[] = []
  class TimedLeases extends Leases {
    override async claim(...args: Parameters<Leases['claim']>) {
      const r = await super.claim(...args)
      if (r.jobs.length) claimSizes.push(r.jobs.length)
      for (const j of r.jobs) claimLate.set(j.id, r.redisNowMs - j.dueMs)
      return r
    }
  }
  const calls: { entries: number; ms: number }[] = []
  const send = sqs.send.bind(sqs) as (c: unknown) => Promise<unknown>
  ;(sqs as unknown as { send: typeof send }).send = async (command) => {
    const t0 = performance.now()
    try {
      return await send(command)
    } finally {
      const entries = (command as { input?: { Entries?: unknown[] } }).input?.Entries?.length ?? 0
      calls.push({ entries, ms: performance.now() - t0 })
    }
  }
  const leases = new TimedLeases(engine.redis, {
    leaseMs: config.leaseMs,
    maxAttempts: config.maxDispatchAttempts,
    backoffBaseMs: config.dispatchBackoffBaseMs,
    backoffMaxMs: config.dispatchBackoffMaxMs,
  })
  const dispatcher = new Dispatcher({
    sqs,
    queues: config.queues,
    concurrency: config.sendConcurrency,
    maxBatchBytes: config.maxMessageBytes,
    maxSendMs: SQS_SDK_ATTEMPTS * sendTimeoutMs(config.leaseMs),
  })
  const subscriber = (engine.redis.duplicate as () => ScriptedClient).call(engine.redis)
  const total: number[] = []
  const sendPart: number[] = []
  const scanner = new Scanner({
    leases,
    dispatcher,
    keys: engine.keys,
    subscriber,
    pollIntervalMs: config.pollIntervalMs,
    claimBatchSize: config.claimBatchSize,
    onSent: (job, _at, late) => {
      total.push(late)
      sendPart.push(late - (claimLate.get(job.id) ?? 0))
    },
  })
  const run = scanner.run(Date.now() + 120_000)
  await sleep(500)
  const first = Date.now() + 5_000
  const all = Array.from({ length: jobs }, (_, i) =>
    benchJob(jobId('p', i), { atMs: first + Math.floor((i * 10_000) / jobs) }),
  )
  for (let b = 0; b < jobs; b += 100) await engine.store.enqueueMany(all.slice(b, b + 100))
  while (total.length < jobs) await sleep(50)
  scanner.stop()
  await run
  await subscriber.quit()
  sqs.destroy()
  await engine.close()
  await queue.remove()
  const line = (label: string, p: ReturnType<typeof percentiles>) =>
    console.log(
      `${label.padEnd(34)} p50 ${p.p50.toFixed(1)}  p90 ${p.p90.toFixed(1)}  p99 ${p.p99.toFixed(1)}  max ${p.max.toFixed(1)} ms`,
    )
  line('lateness (accepted - due)', percentiles(total))
  line('  claim part (claimed - due)', percentiles([...claimLate.values()]))
  line('  send part (accepted - claimed)', percentiles(sendPart))
  line('SendMessageBatch round trip', percentiles(calls.map((c) => c.ms)))
  const entries = percentiles(calls.map((c) => c.entries))
  console.log(
    `SendMessageBatch calls ${calls.length}, entries per call p50 ${entries.p50} p90 ${entries.p90} max ${entries.max}; claims with jobs ${claimSizes.length}, jobs per claim p50 ${percentiles(claimSizes).p50}`,
  )
}

/** Pipelines of 100 enqueue-script calls, 8 in flight: JobStore.enqueueMany's shape, with the script swappable. */
async function burstCpu(env: BenchEnv) {
  const sample = () => ({
    me: process.cpuUsage().user / 1e6 + process.cpuUsage().system / 1e6,
    redis: processCpuSeconds(env.redis.process.pid!),
    sqs: processCpuSeconds(env.sqs.process.pid!),
    at: performance.now(),
  })
  const report = (label: string, a: ReturnType<typeof sample>, b: ReturnType<typeof sample>, messages: number) => {
    const per = (x: number) => ((x * 10_000) / messages).toFixed(2)
    console.log(
      `${label.padEnd(22)} wall ${((b.at - a.at) / 1000).toFixed(2)} s; CPU s per 10k messages: bench/scanner ${per(b.me - a.me)}, ` +
        `redis ${per(b.redis - a.redis)}, fauxqs ${per(b.sqs - a.sqs)}`,
    )
  }
  for (let rep = 0; rep < 3; rep++) {
    let a = sample()
    await measureRawSqs(env, 40_000, rep)
    report('raw SQS (incl. warm-up)', a, sample(), 43_000)
    a = sample()
    const b = await measureBurst(env, 20_000, rep)
    report('burst (incl. enqueue)', a, sample(), 20_000)
    console.log(`  burst drain ${fmt.rate(b.drainPerSec)}, ${b.claims} claims`)
  }
}

/** A V8 CPU profile of this process between start and stop (DRAIN_CPU_PROFILE=path-prefix). */
async function startProfiler() {
  const { Session } = await import('node:inspector/promises')
  const { writeFile } = await import('node:fs/promises')
  const session = new Session()
  session.connect()
  await session.post('Profiler.enable')
  await session.post('Profiler.start')
  return {
    async stop(path: string) {
      const { profile } = await session.post('Profiler.stop')
      await writeFile(path, JSON.stringify(profile))
      session.disconnect()
    },
  }
}

/**
 * With DRAIN_PERF_CTL=<fifo>, `perf record -D -1 --control fifo:<fifo>` samples the drains only (not the enqueues):
 * a CPU-time profile of every thread (V8's own profile samples wall time, and counts neither GC threads nor time the
 * process waits for a core).
 */
function perfControl(command: 'enable' | 'disable'): void {
  const fifo = process.env.DRAIN_PERF_CTL
  if (fifo) writeFileSync(fifo, `${command}\n`)
}

/**
 * This process's CPU seconds on its main thread (the JavaScript) and on its other threads (V8's GC and JIT workers,
 * libuv's), from /proc in 10 ms ticks: what runs beside the scanner's own thread.
 */
function threadCpuSeconds(): { main: number; others: number } {
  let main = 0
  let others = 0
  for (const tid of readdirSync('/proc/self/task')) {
    let s = 0
    try {
      s = processCpuSeconds(Number(tid), `/proc/self/task/${tid}/stat`)
    } catch {
      continue // a thread that ended meanwhile
    }
    if (Number(tid) === process.pid) main += s
    else others += s
  }
  return { main, others }
}

/** CPU seconds so far: this process (the scanner or the raw sender), redis-server (INFO: µs resolution), fauxqs. */
async function cpuSample(env: BenchEnv) {
  const me = process.cpuUsage()
  return {
    threads: threadCpuSeconds(),
    me: (me.user + me.system) / 1e6,
    redis: await redisCpuSeconds(env),
    sqs: processCpuSeconds(env.sqs.process.pid!),
  }
}

type CpuSample = Awaited<ReturnType<typeof cpuSample>>

const perJob = (a: CpuSample, b: CpuSample, n: number) =>
  `this process ${(((b.me - a.me) * 1e6) / n).toFixed(1)} (main thread ${(((b.threads.main - a.threads.main) * 1e6) / n).toFixed(1)}, ` +
  `others ${(((b.threads.others - a.threads.others) * 1e6) / n).toFixed(1)}), redis ${(((b.redis - a.redis) * 1e6) / n).toFixed(1)}, ` +
  `fauxqs ${(((b.sqs - a.sqs) * 1e6) / n).toFixed(1)} µs/job`

/**
 * The scanner's CPU per job in a burst (jobs due at one millisecond), the enqueue left out: what bounds one scan function's drain rate at a given
 * CPU share (µs per job × jobs/s = the CPU it needs). Each repetition first measures the raw SendMessageBatch
 * reference the same way (CPU per message in the sender, Redis and fauxqs), then the drain; with Redis's
 * commandstats of the drain per job (the scripts' own commands included). fauxqs's figure comes from /proc, in
 * 10 ms ticks.
 */
async function drainCpu(env: BenchEnv, jobs: number) {
  const reuse = !!process.env.DRAIN_REUSE
  let reused: Awaited<ReturnType<typeof scanParts>> | undefined
  for (let rep = 0; rep < 3; rep++) {
    const raw0 = await cpuSample(env)
    if (process.env.DRAIN_PERF_RAW) perfControl('enable')
    const raw = await measureRawSqs(env, jobs, 50 + rep)
    if (process.env.DRAIN_PERF_RAW) perfControl('disable')
    // measureRawSqs sends 300 warm-up calls of 10 before the timed ones: counted here too.
    const rawMessages = jobs + 3_000
    console.log(
      `raw ${rawMessages}: ${fmt.rate(raw.messagesPerSec)}; ${perJob(raw0, await cpuSample(env), rawMessages)}`,
    )
    // DRAIN_REUSE=1: one engine and SQS client for every repetition, as the scan function keeps them (module-level,
    // functions/scan.ts); otherwise new ones each time, as npm run bench's bursts build them (bench/scan-run.ts).
    if (reuse && !reused) reused = await scanParts(env, 'drain-reused')
    const parts = reused ?? (await scanParts(env, `drain-${rep}`))
    const store = new JobStore(parts.engine.redis, parts.engine.keys, undefined, NO_REPLICA_WAIT)
    // Due at one millisecond, as in the burst (bench/burst.ts): the scanner starts once every job is in and due.
    const at = Date.now() + 4_000
    const all = Array.from({ length: jobs }, (_, i) => benchJob(jobId(`d${rep}`, i), { atMs: at }))
    for (let b = 0; b < jobs; b += 100) await store.enqueueMany(all.slice(b, b + 100))
    if (Date.now() > at) console.error(`  drain: the enqueue ended ${Date.now() - at} ms after the due time`)
    await sleep(Math.max(0, at + 5 - Date.now()))
    let sent = 0
    let done = () => {}
    const allSent = new Promise<void>((r) => (done = r))
    const profiler = process.env.DRAIN_CPU_PROFILE ? await startProfiler() : null
    await env.admin.config('RESETSTAT')
    const s0 = await cpuSample(env)
    if (!process.env.DRAIN_PERF_RAW) perfControl('enable')
    const cpu0 = process.cpuUsage()
    const t0 = performance.now()
    const scanning = startScanning(
      parts,
      Date.now() + 600_000,
      {
        subscribe: false,
        onSent: () => {
          if (++sent === jobs) done()
        },
      },
      reuse,
    )
    await allSent
    const cpu = process.cpuUsage(cpu0)
    if (!process.env.DRAIN_PERF_RAW) perfControl('disable')
    const wall = (performance.now() - t0) / 1000
    // The acks of the last sends are still on their way: Redis's figures are read once the run has ended.
    if (profiler) await profiler.stop(`${process.env.DRAIN_CPU_PROFILE}.${rep}.cpuprofile`)
    await scanning.stop()
    const s1 = await cpuSample(env)
    const stats = await commandUsec(env)
    const usPerJob = (cpu.user + cpu.system) / jobs
    console.log(
      `drain ${jobs}: wall ${wall.toFixed(2)} s (${fmt.rate(jobs / wall)}); scanner CPU ${usPerJob.toFixed(1)} µs/job ` +
        `(user ${(cpu.user / jobs).toFixed(1)}, system ${(cpu.system / jobs).toFixed(1)}); with the stop: ${perJob(s0, s1, jobs)}`,
    )
    const commands = Object.entries(stats)
      .filter(([cmd]) => cmd !== 'info' && cmd !== 'config')
      .sort((a, b) => b[1].usec - a[1].usec)
      .map(([cmd, c]) => `${cmd} ${(c.calls / jobs).toFixed(2)}/job ${(c.usec / jobs).toFixed(2)} µs/job`)
    console.log(`  redis commands: ${commands.join('; ')}`)
  }
}

/** Redis's CPU per job for a burst's claims, and then for its acks (receipts on, as shipped), without SQS. */
async function scriptsCpu(env: BenchEnv, jobs: number) {
  for (let rep = 0; rep < 3; rep++) {
    const { engine, config, queue } = await scanParts(env, `scripts-${rep}`)
    const shard = engine.keys.shards[0]!
    const leases = new Leases(engine.redis, {
      leaseMs: config.leaseMs,
      maxAttempts: config.maxDispatchAttempts,
      backoffBaseMs: config.dispatchBackoffBaseMs,
      backoffMaxMs: config.dispatchBackoffMaxMs,
      receiptTtlMs: config.dispatchReceiptTtlMs,
    })
    const at = Date.now() + 3_000
    const all = Array.from({ length: jobs }, (_, i) => benchJob(jobId(`r${rep}`, i), { atMs: at }))
    for (let b = 0; b < jobs; b += 100) await engine.store.enqueueMany(all.slice(b, b + 100))
    await sleep(Math.max(0, at + 5 - Date.now()))
    const phase = async (label: string, fn: () => Promise<number>) => {
      await env.admin.config('RESETSTAT')
      const cpu0 = await redisCpuSeconds(env)
      const me0 = process.cpuUsage()
      const n = await fn()
      const me = process.cpuUsage(me0)
      const cpu = (await redisCpuSeconds(env)) - cpu0
      const evalsha = (await commandUsec(env)).evalsha
      console.log(
        `${label} ${n}: redis ${((cpu * 1e6) / n).toFixed(2)} µs/job (EVALSHA ${((evalsha?.usec ?? 0) / n).toFixed(2)}), ` +
          `this process ${((me.user + me.system) / n).toFixed(2)} µs/job`,
      )
    }
    const claims: ClaimedJob[][] = []
    await phase('claims', async () => {
      let hints = await leases.seedHints(shard, config.claimBatchSize)
      let count = 0
      for (;;) {
        const r = await leases.claim(shard, hints, config.claimBatchSize)
        hints = r.hints
        count += r.jobs.length
        if (r.jobs.length) claims.push(r.jobs)
        if (!r.again && r.jobs.length === 0) return count
      }
    })
    for (const batch of claims)
      for (const job of batch) job.accepted = { messageId: randomUUID(), acceptedAtMs: at + 500 }
    await phase('acks', async () => {
      let count = 0
      for (const batch of claims) count += await leases.ack(shard, batch)
      return count
    })
    await engine.close()
    await queue.remove()
  }
}

/** A steady stream's claim on full buckets: one job due per claim, ~100 pending jobs in its bucket. */
async function streamClaimCost(env: BenchEnv) {
  const config = env.config('http://127.0.0.1/unused')
  const redis = connectRedis(config.redis)
  const keys = new Keyspace({ prefix: config.keyPrefix, shards: 1, buckets: 1_024 })
  const store = new JobStore(redis, keys, undefined, NO_REPLICA_WAIT)
  const shard = keys.shards[0]!
  const leases = new Leases(redis, { leaseMs: 30_000, maxAttempts: 10, backoffBaseMs: 100, backoffMaxMs: 1_000 })
  const at = Date.now() + 5_000
  for (let i = 0; i < 100_000; i += 1_000) {
    // Due 1 ms apart from `at`: each claim below, made at its job's due time, finds that one due.
    await store.enqueueMany(Array.from({ length: 1_000 }, (_, k) => benchJob(jobId('t', i + k), { atMs: at + i + k })))
  }
  await sleep(Math.max(0, at + 500 - Date.now()))
  for (let round = 0; round < 3; round++) {
    await env.admin.config('RESETSTAT')
    const cpu0 = await redisCpuSeconds(env)
    let hints = await leases.seedHints(shard, 250)
    let jobs = 0
    const claims = 500
    for (let c = 0; c < claims; c++) {
      const r = await leases.claim(shard, hints, 250)
      hints = r.hints
      jobs += r.jobs.length
      await sleep(1)
    }
    const cpu = (await redisCpuSeconds(env)) - cpu0
    const evalsha = (await commandUsec(env)).evalsha!
    console.log(
      `stream claims: ${(jobs / claims).toFixed(1)} jobs a claim, ${(evalsha.usec / evalsha.calls).toFixed(1)} µs in Redis a claim ` +
        `(redis-server CPU ${((cpu * 1e6) / claims).toFixed(1)} µs a claim)`,
    )
  }
  await redis.quit()
}

async function main() {
  const what = process.argv[2] ?? 'redis'
  const env = await startBenchEnv()
  try {
    if (what === 'redis') {
      for (let rep = 0; rep < 2; rep++) {
        const raw = await withRedisProfile(env, `bare ZADD+HSET script x 100k`, 100_000, () =>
          measureRawRedis(env, 100_000, rep),
        )
        console.log(`  -> ${fmt.rate(raw.callsPerSec)}`)
        const lib = await withRedisProfile(env, `enqueueMany x 100k`, 100_000, () => measureEnqueue(env, 100_000, rep))
        console.log(`  -> ${fmt.rate(lib)}`)
      }
    } else if (what === 'sqs') {
      // Per-request vs per-message cost of the endpoint: same concurrency, 1, 3 and 10 entries per call.
      for (let rep = 0; rep < 2; rep++) {
        for (const perBatch of [10, 3, 1]) {
          const r = await measureRawSqs(env, perBatch * 1_500, rep, perBatch)
          console.log(
            `raw sqs, ${perBatch} per call: ${fmt.rate(r.messagesPerSec)} messages, ${fmt.rate(r.messagesPerSec / perBatch)} calls`,
          )
        }
      }
    } else if (what === 'lateness') {
      const jobs = Number(process.argv[3] ?? 20_000)
      const r = await withRedisProfile(env, `lateness, ${jobs} jobs`, jobs, () => measureLateness(env, jobs))
      console.log(r)
    } else if (what === 'claim') await claimCost(env)
    else if (what === 'stream') await streamClaimCost(env)
    else if (what === 'burst') await burstCpu(env)
    else if (what === 'scripts') await scriptsCpu(env, Number(process.argv[3] ?? 20_000))
    else if (what === 'share') {
      await measureRawSqs(env, 20_000, 99)
      for (let rep = 0; rep < 3; rep++) {
        const raw = await measureRawSqs(env, 40_000, rep)
        const b = await measureBurst(env, 20_000, rep)
        console.log(
          `raw ${fmt.rate(raw.messagesPerSec)}, burst drain ${fmt.rate(b.drainPerSec)}: ` +
            `${((b.drainPerSec / raw.messagesPerSec) * 100).toFixed(0)}% (last in SQS ${b.lastInSqsMs} ms)`,
        )
      }
    } else if (what === 'drain') await drainCpu(env, Number(process.argv[3] ?? 20_000))
    else if (what === 'split') await latenessSplit(env, Number(process.argv[3] ?? 20_000))
    await flush(env.admin)
    void commandCalls
  } finally {
    await env.stop()
  }
}

runMain(main)
