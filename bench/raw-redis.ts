// Reference: what this Redis does with the bare minimum a delay queue needs per job (one ZADD + one HSET in one
// Lua script), called one EVALSHA at a time with 50 calls in flight. The library's enqueue rate is judged against
// this, so both run on the same server, in the same minute, with the same ids and payload.
import { connectRedis } from '../src/store/redis/redis'
import { PAYLOAD_JSON, jobId } from './data'
import { flush, usedMemory, type BenchEnv } from './env'
import { inFlight } from '../devkit/stats'

const BARE_LUA = `redis.call('ZADD', KEYS[1], ARGV[1], ARGV[2])
redis.call('HSET', KEYS[2], ARGV[2], ARGV[3])
return 1`

export interface RawRedisResult {
  callsPerSec: number
  /** used_memory growth per job of a bare sorted set + hash (one key each, so skiplist + hashtable encodings). */
  bytesPerJob: number
}

export async function measureRawRedis(env: BenchEnv, calls: number, rep: number): Promise<RawRedisResult> {
  await flush(env.admin)
  const redis = connectRedis({ url: env.redis.url })
  redis.defineCommand('benchBare', { lua: BARE_LUA, numberOfKeys: 2 })
  const bare = (redis as unknown as { benchBare(...a: (string | number)[]): Promise<unknown> }).benchBare.bind(redis)
  try {
    // Load the script (ioredis falls back to EVAL once on NOSCRIPT) outside the timed part.
    await bare('bare:due', 'bare:jobs', 0, 'warm', '')
    await redis.del('bare:due', 'bare:jobs')
    const ids = Array.from({ length: calls }, (_, i) => jobId(`r${rep}`, i))
    const base = Date.now() + 3_600_000
    const before = await usedMemory(env.admin)
    const started = performance.now()
    await inFlight(calls, 50, (i) => bare('bare:due', 'bare:jobs', base + i, ids[i]!, PAYLOAD_JSON))
    const seconds = (performance.now() - started) / 1000
    const after = await usedMemory(env.admin)
    return { callsPerSec: calls / seconds, bytesPerJob: (after - before) / calls }
  } finally {
    await redis.quit()
  }
}
