--[[
  schedule-delete: remove a recurring schedule and its pending occurrence.

  KEYS[1]  schedules    HASH  schedule id -> record "version\npendingMs\n..."
  KEYS[2]  scheduleIds  ZSET  schedule id -> 0
  KEYS[3]  jobs         HASH  job id -> record
  KEYS[4]  index        ZSET  bucket number -> earliest due time in that bucket
  KEYS[5]  bucket       ZSET  the schedule's due bucket
  KEYS[6]  inflight     ZSET  id -> lease expiry or retry time (ms)
  KEYS[7]  leases       HASH  id -> "attempt:dueMs:token"
  KEYS[8]  errors       HASH  id -> last dispatch error
  KEYS[9]  dead         ZSET  id -> time it died (ms)
  KEYS[10] counts       HASH  "<queue>|<state>" -> count

  ARGV[1] id        schedule id
  ARGV[2] bucketNo  the schedule's bucket number

  No occurrence is created after this returns: the pending one is removed (scheduled, waiting for a retry, or dead),
  and one that a scanner holds right now goes out, but its ack finds no schedule, so it creates nothing.
  Returns 1 deleted.
  Error codes:
    0 SCHEDULE_NOT_FOUND  no such schedule
  Helpers: decodeSchedule, dropUnleased
]]
local k = { schedules = KEYS[1], scheduleIds = KEYS[2], jobs = KEYS[3], index = KEYS[4], bucket = KEYS[5],
  inflight = KEYS[6], leases = KEYS[7], errors = KEYS[8], dead = KEYS[9], counts = KEYS[10] }
local sid, bucketNo = ARGV[1], ARGV[2]

local old = redis.call('HGET', k.schedules, sid)
if not old then return 0 end
redis.call('HDEL', k.schedules, sid)
redis.call('ZREM', k.scheduleIds, sid)
local _, pending = decodeSchedule(old)
if pending ~= '' then dropUnleased(k, bucketNo, sid .. '@' .. pending) end
return 1
