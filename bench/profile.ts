// Diagnostics behind docs/benchmarks.md's "where the time goes": not part of `npm run bench`.
//   node scripts/run-ts.mjs bench/profile.ts redis     Redis-side cost per call (INFO commandstats) of the bare
//                                                      script vs the real enqueue script, and the client's share
//   node scripts/run-ts.mjs bench/profile.ts sqs       raw SendMessageBatch rate, 5 times in a row (warm-up drift)
//   node scripts/run-ts.mjs bench/profile.ts lateness  the lateness scenario with Redis commandstats and the
//   node scripts/run-ts.mjs bench/profile.ts claim     cost of one claim on a shard with nothing due, by how many
//                                                      bucket hints it carries in KEYS and returns (src/leases.ts
//                                                      sends max(limit, 16) = 250 with the shipped defaults)
import './esm-interop'
import { commandCalls, flush, info, startBenchEnv, type BenchEnv } from './env'
import { measureEnqueue } from './enqueue'
import { measureLateness } from './lateness'
import { measureRawRedis } from './raw-redis'
import { measureRawSqs } from './raw-sqs'
import { fmt } from './table'
import { benchJob, jobId } from './data'
import { Keyspace } from '../src/keys'
import { connectRedis } from '../src/redis'
import { JobStore } from '../src/store'

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
  console.log(`${label}: wall ${wall.toFixed(2)} s; redis-server CPU ${cpu.toFixed(2)} s (${((cpu / wall) * 100).toFixed(0)}% of a core); ` +
    `bench process CPU ${((clientCpu.user + clientCpu.system) / 1e6).toFixed(2)} s`)
  for (const [cmd, s] of Object.entries(stats).sort((a, b) => b[1].usec - a[1].usec)) {
    if (cmd === 'info' || cmd === 'config') continue
    console.log(`  ${cmd.padEnd(10)} ${String(s.calls).padStart(8)} calls  ${(s.calls / n).toFixed(2)}/job  ${(s.usec / s.calls).toFixed(2)} us/call  ${(s.usec / n).toFixed(2)} us/job`)
  }
  return result
}

async function claimCost(env: BenchEnv) {
  const config = env.config('http://127.0.0.1/unused')
  const redis = connectRedis(config.redis)
  const keys = new Keyspace({ prefix: config.keyPrefix, shards: 1, buckets: config.dueBuckets })
  const store = new JobStore(redis, keys)
  const shard = keys.shards[0]!
  for (let i = 0; i < 100_000; i += 1_000) {
    await store.enqueueMany(Array.from({ length: 1_000 }, (_, k) => benchJob(jobId('c', i + k), { delayMs: 3_600_000 + i + k })))
  }
  for (const hintCount of [250, 64, 16, 250, 64, 16]) {
    const hints = await redis.zrange(shard.index, '0', String(hintCount - 1))
    const claimKeys = [shard.jobs, shard.index, shard.inflight, shard.leases, shard.errors, shard.dead, shard.counts, ...hints.map((b) => shard.bucket(b))]
    const n = 2_000
    await env.admin.config('RESETSTAT')
    const t0 = performance.now()
    for (let i = 0; i < n; i++) await redis.sdqClaim(claimKeys.length, ...claimKeys, 250, 30_000, 'tok', 10, hintCount, ...hints)
    const wall = (performance.now() - t0) / n
    const evalsha = (await commandUsec(env)).evalsha!
    console.log(`claim with ${hintCount} hints in and out: ${(evalsha.usec / evalsha.calls).toFixed(1)} us in Redis, ${(wall * 1000).toFixed(0)} us round trip`)
  }
  await redis.quit()
}

async function main() {
  const what = process.argv[2] ?? 'redis'
  const env = await startBenchEnv()
  try {
    if (what === 'redis') {
      for (let rep = 0; rep < 2; rep++) {
        const raw = await withRedisProfile(env, `bare ZADD+HSET script x 100k`, 100_000, () => measureRawRedis(env, 100_000, rep))
        console.log(`  -> ${fmt.rate(raw.callsPerSec)}`)
        const lib = await withRedisProfile(env, `enqueueMany x 100k`, 100_000, () => measureEnqueue(env, 100_000, rep))
        console.log(`  -> ${fmt.rate(lib)}`)
      }
    } else if (what === 'sqs') {
      for (let rep = 0; rep < 5; rep++) {
        const r = await measureRawSqs(env, 20_000, rep)
        console.log(`raw sqs rep ${rep + 1}: ${fmt.rate(r.messagesPerSec)}`)
      }
    } else if (what === 'lateness') {
      const jobs = Number(process.argv[3] ?? 20_000)
      const r = await withRedisProfile(env, `lateness, ${jobs} jobs`, jobs, () => measureLateness(env, jobs))
      console.log(r)
    }
    else if (what === 'claim') await claimCost(env)
    await flush(env.admin)
    void commandCalls
  } finally {
    await env.stop()
  }
}

main().then(() => process.exit(0), (e) => (console.error(e), process.exit(1)))
