--[[
  cancel: remove a job that has not been handed to SQS yet.

  KEYS[1] jobs      HASH  id -> record
  KEYS[2] index     ZSET  bucket number -> earliest due time in that bucket
  KEYS[3] bucket    ZSET  the job's due bucket
  KEYS[4] inflight  ZSET  id -> lease expiry or retry time (ms)
  KEYS[5] leases    HASH  id -> "attempt:dueMs:token"
  KEYS[6] errors    HASH  id -> last dispatch error
  KEYS[7] dead      ZSET  id -> time it died (ms)
  KEYS[8] counts    HASH  per-queue counters
  KEYS[9] schedules HASH  schedule id -> record "version\npendingMs\n..." (lua/schedule-put.lua)

  ARGV[1] id
  ARGV[2] bucket number
  ARGV[3] schedule id when the id names an occurrence ("<schedule id>@<ms>"), else ""

  Returns 1 cancelled (scheduled, waiting for a retry, or dead)
  Error codes:
     0 JOB_NOT_FOUND    no such job (never existed, cancelled, or already in SQS)
    -2 JOB_DISPATCHING  a scanner holds a lease on it: it is being handed to SQS right now
    -3 OCCURRENCE_OF_SCHEDULE  it is its schedule's pending occurrence: removing it would end the series (only the
                               schedule's ack creates the next one), so the schedule must be paused or deleted
]]
local jobs, index, bucket, inflight, leases, errors, dead, counts, schedules =
  KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6], KEYS[7], KEYS[8], KEYS[9]
local id, bucketNo, scheduleId = ARGV[1], ARGV[2], ARGV[3]

local record = redis.call('HGET', jobs, id)
if not record then return 0 end

if scheduleId ~= '' then
  local schedule = redis.call('HGET', schedules, scheduleId)
  if schedule and scheduleId .. '@' .. string.match(schedule, '^%d+\n(%d*)\n') == id then return -3 end
end
local queue = string.sub(record, 1, string.find(record, '\n', 1, true) - 1)

local lease = redis.call('HGET', leases, id)
if lease and string.sub(lease, -1) ~= ':' then return -2 end

if redis.call('ZREM', bucket, id) == 1 then
  local first = redis.call('ZRANGE', bucket, 0, 0, 'WITHSCORES')
  if first[1] then redis.call('ZADD', index, first[2], bucketNo) else redis.call('ZREM', index, bucketNo) end
  redis.call('HINCRBY', counts, queue .. '|pending', -1)
elseif lease then
  redis.call('ZREM', inflight, id)
  redis.call('HDEL', leases, id)
  redis.call('HINCRBY', counts, queue .. '|pending', -1)
elseif redis.call('ZREM', dead, id) == 1 then
  redis.call('HINCRBY', counts, queue .. '|dead', -1)
end
redis.call('HDEL', errors, id)
redis.call('HDEL', jobs, id)
return 1
