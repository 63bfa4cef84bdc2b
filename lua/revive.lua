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
  Helpers: nowMs, queueOf, countBy, reindexBucket, wakeIfEarliest
]]
local jobs, index, bucket, errors, dead, counts = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6]
local id, bucketNo, delay, wake = ARGV[1], ARGV[2], tonumber(ARGV[3]), ARGV[4]

if not redis.call('ZSCORE', dead, id) then return 0 end
local record = redis.call('HGET', jobs, id)
redis.call('ZREM', dead, id)
if not record then return 0 end

local due = nowMs() + delay
local queue = queueOf(record)
redis.call('ZADD', bucket, due, id)
countBy(counts, queue, 'dead', -1)
countBy(counts, queue, 'pending', 1)

reindexBucket(index, bucket, bucketNo)
wakeIfEarliest(index, wake, bucketNo, due)
return due
