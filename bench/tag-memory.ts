// What tags cost in memory (src/store/tag-index.ts): bytes per pending job with 0, 1 and 3 tags, over the same jobs as
// the memory row (200-byte payload, 20-character ids, due over 30 days), and how much of it is the tag index alone
// (MEMORY USAGE of each shard's index key) rather than the tags kept in each record. Tags as an application would
// set them: "order:<n>" shared by 3 jobs (an order's reminder, timeout and follow-up), "user:<n>" by 30, "tenant:<n>"
// by a tenth of all jobs. 0 tags is the reference: a job without tags has no entry and no bytes in its record.
import { connectRedis } from '../src/store/redis/redis'
import { Keyspace } from '../src/store/keys'
import { JobStore } from '../src/store/job-store'
import { NO_REPLICA_WAIT } from '../src/store/redis/replication'
import { benchJob, jobId } from './data'
import { flush, usedMemory, type BenchEnv } from './env'
import { inFlight } from '../devkit/stats'
import { fmt, type Row } from './table'

const DAY_MS = 86_400_000

export interface TagMemory {
  tags: number
  jobs: number
  bytesPerJob: number
  /** The shards' tag index keys alone, per job. */
  indexBytesPerJob: number
}

const tagsOf = (i: number, count: number) =>
  [`order:${Math.floor(i / 3)}`, `user:${Math.floor(i / 30)}`, `tenant:${i % 10}`].slice(0, count)

async function measure(env: BenchEnv, jobs: number, tags: number): Promise<TagMemory> {
  await flush(env.admin)
  const config = env.config('http://127.0.0.1/unused')
  const redis = connectRedis(config.redis)
  const keys = new Keyspace({ prefix: config.keyPrefix, shards: config.shards, buckets: config.dueBuckets })
  const store = new JobStore(redis, keys, undefined, NO_REPLICA_WAIT)
  try {
    await redis.script('LOAD', 'return 1')
    const before = await usedMemory(env.admin)
    const base = Date.now() + DAY_MS
    const batch = 1_000
    await inFlight(Math.ceil(jobs / batch), 4, async (b) => {
      const list = []
      for (let i = b * batch; i < Math.min(jobs, (b + 1) * batch); i++) {
        const slot = (i * 7_919) % jobs
        const job = benchJob(jobId('t', i), { atMs: base + Math.floor((slot * 30 * DAY_MS) / jobs) })
        list.push(tags ? { ...job, tags: tagsOf(i, tags) } : job)
      }
      for (const r of await store.enqueueMany(list)) if (r instanceof Error) throw r
    })
    const after = await usedMemory(env.admin)
    let index = 0
    for (const shard of keys.shards) index += Number((await redis.memory('USAGE', shard.tags, 'SAMPLES', '0')) ?? 0)
    return { tags, jobs, bytesPerJob: (after - before) / jobs, indexBytesPerJob: index / jobs }
  } finally {
    await redis.quit()
    await flush(env.admin)
  }
}

/** Bytes per job with 0, 1 and 3 tags, each over `jobs` jobs in an emptied Redis. */
export async function measureTagMemory(env: BenchEnv, jobs: number): Promise<TagMemory[]> {
  const out: TagMemory[] = []
  for (const tags of [0, 1, 3]) out.push(await measure(env, jobs, tags))
  return out
}

export function tagMemoryRows(results: TagMemory[]): Row[] {
  const none = results[0]!.bytesPerJob
  return results.map((r) => ({
    measure: `bytes per pending job with ${r.tags} tag${r.tags === 1 ? '' : 's'} (${fmt.int(r.jobs)} jobs)`,
    value: r.bytesPerJob.toFixed(1),
    note: r.tags
      ? `+${(r.bytesPerJob - none).toFixed(1)} over none; index alone ${r.indexBytesPerJob.toFixed(1)}`
      : 'reference',
  }))
}
