// Time travel for tests of logic in Redis's time: rather than move Redis's clock forward (it cannot be), move one
// stored job back by `ms`: its creation time (in its record) and its due time (in its bucket and the shard's index).
// To the scripts that read the job with Redis's clock (TIME), that is the same as `ms` passing for that job alone.
import type { Keyspace } from '../../src/store/keys'
import type { RedisClient } from '../../src/store/scripts'

const AGE = `
local record = redis.call('HGET', KEYS[1], ARGV[1])
if not record then return 0 end
local queue, created, rest = string.match(record, '^([^\\n]*)\\n([^\\n]*)\\n(.*)$')
local ms = tonumber(ARGV[3])
local n, digits = tonumber(created, 36) - ms, ''
repeat
  local d = n % 36
  digits = string.sub('0123456789abcdefghijklmnopqrstuvwxyz', d + 1, d + 1) .. digits
  n = math.floor(n / 36)
until n == 0
redis.call('HSET', KEYS[1], ARGV[1], queue .. '\\n' .. digits .. '\\n' .. rest)
local due = redis.call('ZSCORE', KEYS[2], ARGV[1])
if due then
  redis.call('ZADD', KEYS[2], tonumber(due) - ms, ARGV[1])
  local first = redis.call('ZRANGE', KEYS[2], 0, 0, 'WITHSCORES')
  redis.call('ZADD', KEYS[3], first[2], ARGV[2])
end
return 1
`

/** Moves job `id` `ms` into the past; false when no such job is stored. */
export async function ageJob(redis: RedisClient, keys: Keyspace, id: string, ms: number): Promise<boolean> {
  const { shard, bucket, bucketNo } = keys.locate(id)
  return (await redis.eval(AGE, 3, shard.jobs, bucket, shard.index, id, bucketNo, ms)) === 1
}
