--[[
  schedule-delete: remove a recurring schedule and its pending occurrence.

  KEYS[1]  schedules     HASH  schedule id -> record "version\npendingMs\n..."
  KEYS[2]  schedule-ids  ZSET  schedule id -> 0
  KEYS[3]  jobs          HASH  job id -> record
  KEYS[4]  index         ZSET  bucket number -> earliest due time in that bucket
  KEYS[5]  bucket        ZSET  the schedule's due bucket
  KEYS[6]  inflight      ZSET  id -> lease expiry or retry time (ms)
  KEYS[7]  leases        HASH  id -> "attempt:dueMs:token"
  KEYS[8]  errors        HASH  id -> last dispatch error
  KEYS[9]  dead          ZSET  id -> time it died (ms)
  KEYS[10] counts        HASH  per-queue counters

  ARGV[1] schedule id
  ARGV[2] bucket number

  No occurrence is created after this returns: the pending one is removed (scheduled, waiting for a retry, or dead),
  and one that a scanner holds right now goes out but its ack finds no schedule, so it creates nothing.
  Returns 1 deleted.
  Error codes:
    0 SCHEDULE_NOT_FOUND  no such schedule
]]
local schedules, scheduleIds, jobs, index, bucket, inflight, leases, errors, dead, counts =
  KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6], KEYS[7], KEYS[8], KEYS[9], KEYS[10]
local sid, bucketNo = ARGV[1], ARGV[2]

local old = redis.call('HGET', schedules, sid)
if not old then return 0 end
redis.call('HDEL', schedules, sid)
redis.call('ZREM', scheduleIds, sid)

local pending = string.match(old, '^%d+\n(%d*)\n')
if pending == '' then return 1 end
local id = sid .. '@' .. pending
local record = redis.call('HGET', jobs, id)
if not record then return 1 end
local lease = redis.call('HGET', leases, id)
if lease and string.sub(lease, -1) ~= ':' then return 1 end
local queue = string.sub(record, 1, string.find(record, '\n', 1, true) - 1)
if redis.call('ZREM', bucket, id) == 1 then
  local head = redis.call('ZRANGE', bucket, 0, 0, 'WITHSCORES')
  if head[1] then redis.call('ZADD', index, head[2], bucketNo) else redis.call('ZREM', index, bucketNo) end
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
