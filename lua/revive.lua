--[[
  revive: put a job from the dead set (SQS refused it on every attempt) back on schedule, unchanged.

  KEYS[1] jobs      HASH  id -> record
  KEYS[2] index     ZSET  bucket number -> earliest due time in that bucket
  KEYS[3] bucket    ZSET  the job's due bucket
  KEYS[4] errors    HASH  id -> last dispatch error
  KEYS[5] dead      ZSET  id -> time it died (ms)
  KEYS[6] counts    HASH  "<queue>|<state>" -> count

  ARGV[1] id
  ARGV[2] bucketNo  the job's bucket number (its member in KEYS[2])
  ARGV[3] delayMs   added to Redis's clock
  ARGV[4] wake      the shard's wake channel

  Returns the new due time (ms). The dispatch attempts start again from 1; the last error is kept for reference
  until the job is dispatched.
  Error codes:
    0 JOB_NOT_FOUND  no dead job with this id
]]
local jobs, index, bucket, errors, dead, counts = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6]
local id, bucketNo, delay, wake = ARGV[1], ARGV[2], tonumber(ARGV[3]), ARGV[4]

if not redis.call('ZSCORE', dead, id) then return 0 end
local record = redis.call('HGET', jobs, id)
redis.call('ZREM', dead, id)
if not record then return 0 end

local t = redis.call('TIME')
local due = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000) + delay
local queue = string.sub(record, 1, string.find(record, '\n', 1, true) - 1)
redis.call('ZADD', bucket, due, id)
redis.call('HINCRBY', counts, queue .. '|dead', -1)
redis.call('HINCRBY', counts, queue .. '|pending', 1)

local first = redis.call('ZRANGE', bucket, 0, 0, 'WITHSCORES')
redis.call('ZADD', index, first[2], bucketNo)
local earliest = redis.call('ZRANGE', index, 0, 0, 'WITHSCORES')
if earliest[1] == bucketNo and tonumber(earliest[2]) == due then
  redis.call('PUBLISH', wake, due .. ':' .. bucketNo)
end
return due
