// Bytes per pending job: used_memory growth over N jobs (200-byte payload, 20-char ids, due times spread over 30
// days, shipped DUE_BUCKETS), loaded fast through the real enqueue script (enqueueMany pipelines of 1,000).
// Compare with raw-redis.ts's bare sorted set + hash, which is what a naive design stores.
import { connectRedis } from '../src/store/redis/redis'
import { Keyspace } from '../src/store/keys'
import { JobStore } from '../src/store/job-store'
import { NO_REPLICA_WAIT } from '../src/store/redis/replication'
import { benchJob, jobId } from './data'
import { flush, usedMemory, type BenchEnv } from './env'
import { inFlight } from '../devkit/stats'

const DAY_MS = 86_400_000

export interface MemoryResult {
  jobs: number
  buckets: number
  bytesPerJob: number
  loadPerSec: number
  /** Encoding of one due bucket: listpack is what makes the small per-job overhead. */
  bucketEncoding: string
  jobsEncoding: string
}

export async function measureMemory(env: BenchEnv, jobs: number, buckets?: number): Promise<MemoryResult> {
  await flush(env.admin)
  const config = env.config('http://127.0.0.1/unused', buckets ? { DUE_BUCKETS: String(buckets) } : {})
  const redis = connectRedis(config.redis)
  const keys = new Keyspace({ prefix: config.keyPrefix, shards: config.shards, buckets: config.dueBuckets })
  const store = new JobStore(redis, keys, undefined, NO_REPLICA_WAIT)
  try {
    await redis.script('LOAD', 'return 1') // open the connection outside the measurement
    const before = await usedMemory(env.admin)
    const base = Date.now() + DAY_MS
    const batch = 1_000
    const started = performance.now()
    await inFlight(Math.ceil(jobs / batch), 4, async (b) => {
      const list = []
      for (let i = b * batch; i < Math.min(jobs, (b + 1) * batch); i++) {
        // A multiplicative shuffle spreads consecutive ids over the 30 days.
        const slot = (i * 7_919) % jobs
        list.push(benchJob(jobId('m', i), { atMs: base + Math.floor((slot * 30 * DAY_MS) / jobs) }))
      }
      for (const r of await store.enqueueMany(list)) if (r instanceof Error) throw r
    })
    const loadPerSec = jobs / ((performance.now() - started) / 1000)
    const after = await usedMemory(env.admin)
    const sample = keys.locate(jobId('m', 0))
    return {
      jobs,
      buckets: config.dueBuckets,
      bytesPerJob: (after - before) / jobs,
      loadPerSec,
      bucketEncoding: String(await redis.object('ENCODING', sample.bucket)),
      jobsEncoding: String(await redis.object('ENCODING', sample.shard.jobs)),
    }
  } finally {
    await redis.quit()
    await flush(env.admin)
  }
}
