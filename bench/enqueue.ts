// Library enqueue rate: JobStore.enqueueMany (one pipeline of the real enqueue script per call), batches of 100,
// several batches in flight, the way an application or the batch API route would load jobs. Jobs are built
// before the clock starts: we time the library and Redis, not the bench's object building.
import { connectRedis } from '../src/store/redis/redis'
import { Keyspace } from '../src/store/keys'
import { JobStore, type NewJob } from '../src/store/job-store'
import { NO_REPLICA_WAIT } from '../src/store/redis/replication'
import { benchJob, jobId } from './data'
import { flush, type BenchEnv } from './env'
import { inFlight } from '../devkit/stats'

export const ENQUEUE_BATCH = 100
export const ENQUEUE_BATCHES_IN_FLIGHT = 8

export async function measureEnqueue(env: BenchEnv, jobs: number, rep: number): Promise<number> {
  await flush(env.admin)
  const config = env.config('http://127.0.0.1/unused')
  const redis = connectRedis(config.redis)
  const store = new JobStore(
    redis,
    new Keyspace({ prefix: config.keyPrefix, shards: config.shards, buckets: config.dueBuckets }),
    undefined,
    NO_REPLICA_WAIT,
  )
  try {
    await store.enqueue(benchJob(`warm-${rep}`, { delayMs: 3_600_000 })) // loads the script (EVAL on NOSCRIPT)
    const base = Date.now() + 3_600_000
    const batches: NewJob[][] = []
    for (let i = 0; i < jobs; i += ENQUEUE_BATCH) {
      batches.push(
        Array.from({ length: Math.min(ENQUEUE_BATCH, jobs - i) }, (_, k) =>
          benchJob(jobId(`e${rep}`, i + k), { atMs: base + i + k }),
        ),
      )
    }
    const started = performance.now()
    await inFlight(batches.length, ENQUEUE_BATCHES_IN_FLIGHT, async (b) => {
      for (const r of await store.enqueueMany(batches[b]!)) if (r instanceof Error) throw r
    })
    return jobs / ((performance.now() - started) / 1000)
  } finally {
    await redis.quit()
  }
}
