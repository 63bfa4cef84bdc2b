--[[
  cancel: remove a job that has not been handed to SQS yet.

  KEYS[1] jobs      HASH  id -> record
  KEYS[2] index     ZSET  bucket number -> earliest due time in that bucket
  KEYS[3] bucket    ZSET  the job's due bucket
  KEYS[4] inflight  ZSET  id -> lease expiry or retry time (ms)
  KEYS[5] leases    HASH  id -> "attempt:dueMs:token"
  KEYS[6] errors    HASH  id -> last dispatch error
  KEYS[7] dead      ZSET  id -> time it died (ms)
  KEYS[8] counts    HASH  "<queue>|<state>" -> count
  KEYS[9] schedules HASH  schedule id -> record "version\npendingMs\n..." (lua/schedule-put.lua)

  ARGV[1] id
  ARGV[2] bucketNo  the job's bucket number (its member in KEYS[2])
  ARGV[3] scheduleId  the schedule an occurrence id ("<schedule id>@<ms>") names, "" for other jobs

  Returns 1 cancelled (scheduled, waiting for a retry, or dead)
  Error codes:
     0 JOB_NOT_FOUND    no such job (never existed, cancelled, or already in SQS)
    -2 JOB_DISPATCHING  a scanner holds a lease on it: it is being handed to SQS right now
    -3 OCCURRENCE_OF_SCHEDULE  the pending occurrence of its schedule: only its ack creates the next one, so
                               removing it would end the series (pause, replace or delete the schedule instead)
  Helpers: queueOf, countBy, reindexBucket, waitsForRetry, decodeSchedule
]]
local jobs, index, bucket, inflight, leases, errors, dead, counts, schedules =
  KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6], KEYS[7], KEYS[8], KEYS[9]
local id, bucketNo, scheduleId = ARGV[1], ARGV[2], ARGV[3]

local record = redis.call('HGET', jobs, id)
if not record then return 0 end

if scheduleId ~= '' then
  local schedule = redis.call('HGET', schedules, scheduleId)
  if schedule and scheduleId .. '@' .. select(2, decodeSchedule(schedule)) == id then return -3 end
end
local queue = queueOf(record)

local lease = redis.call('HGET', leases, id)
if lease and not waitsForRetry(lease) then return -2 end

if redis.call('ZREM', bucket, id) == 1 then
  reindexBucket(index, bucket, bucketNo)
  countBy(counts, queue, 'pending', -1)
elseif lease then
  redis.call('ZREM', inflight, id)
  redis.call('HDEL', leases, id)
  countBy(counts, queue, 'pending', -1)
elseif redis.call('ZREM', dead, id) == 1 then
  countBy(counts, queue, 'dead', -1)
end
redis.call('HDEL', errors, id)
redis.call('HDEL', jobs, id)
return 1
