--[[
  schedule-ack: forget occurrences that SQS accepted (as lua/ack.lua does for any job, for the lease that sent them
  only) and, in the same step, create each one's successor: a crash can never separate the two.

  KEYS[1] jobs       HASH  id -> record
  KEYS[2] inflight   ZSET  id -> lease expiry or retry time (ms)
  KEYS[3] leases     HASH  id -> "attempt:dueMs:token"
  KEYS[4] errors     HASH  id -> last dispatch error
  KEYS[5] counts     HASH  per-queue counters
  KEYS[6] schedules  HASH  schedule id -> record "version\npendingMs\nruns\nlastRunMs\ncreatedAtMs\nspec\npayload"
  KEYS[7] index      ZSET  bucket number -> earliest due time in that bucket
  KEYS[8..]          the schedules' due buckets

  ARGV[1] wake channel
  ARGV[2..] groups of 9: occurrence id, claim token, schedule id, occurrence time (ms), schedule version the caller
            computed from, next occurrence after this one (-1: none, the schedule ends), next occurrence after the
            caller's now (-1: none), bucket number, index in KEYS of that bucket

  Successor rule: only when the schedule exists, still has the version the caller read (a replace in between made
  its own pending occurrence) and still names this occurrence as pending (a replace or pause moved on). The next
  occurrence after this one is used while it is ahead of Redis's clock; if it has passed (an outage), the one after
  the caller's now: missed occurrences fire once, not once per miss. Its id is deterministic: an existing job of
  that id is never created twice.
  Returns the number of occurrences acknowledged.
  Error codes: none.
]]
local jobs, inflight, leases, errors, counts, schedules, index = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6], KEYS[7]
local wake = ARGV[1]

local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)

local function b36(n)
  local digits, s = '0123456789abcdefghijklmnopqrstuvwxyz', ''
  repeat
    local d = n % 36
    s = string.sub(digits, d + 1, d + 1) .. s
    n = math.floor(n / 36)
  until n == 0
  return s
end

-- The successor carries the acknowledged occurrence's queue, group and payload (same schedule version, same
-- content), with a new creation time and version 0.
local function successor(record, sid, at, bucket, bucketNo)
  local id = sid .. '@' .. at
  if redis.call('HEXISTS', jobs, id) == 1 then return end
  local q1 = string.find(record, '\n', 1, true)
  local q2 = string.find(record, '\n', q1 + 1, true)
  local q3 = string.find(record, '\n', q2 + 1, true)
  local queue = string.sub(record, 1, q1 - 1)
  redis.call('HSET', jobs, id, queue .. '\n' .. b36(now) .. '\n0' .. string.sub(record, q3))
  redis.call('ZADD', bucket, at, id)
  redis.call('HINCRBY', counts, queue .. '|pending', 1)
  if redis.call('ZADD', index, 'LT', 'CH', at, bucketNo) == 1 then
    local earliest = redis.call('ZRANGE', index, 0, 0, 'WITHSCORES')
    if earliest[1] == bucketNo and tonumber(earliest[2]) == at then redis.call('PUBLISH', wake, at .. ':' .. bucketNo) end
  end
end

local acked = 0
for i = 2, #ARGV, 9 do
  local id, token, sid, at, version = ARGV[i], ARGV[i + 1], ARGV[i + 2], ARGV[i + 3], ARGV[i + 4]
  local nextAfterIt, nextAfterNow, bucketNo, bucket =
    tonumber(ARGV[i + 5]), tonumber(ARGV[i + 6]), ARGV[i + 7], KEYS[tonumber(ARGV[i + 8])]
  local lease = redis.call('HGET', leases, id)
  if lease and token ~= '' and string.sub(lease, -(#token + 1)) == ':' .. token then
    local record = redis.call('HGET', jobs, id)
    redis.call('ZREM', inflight, id)
    redis.call('HDEL', leases, id)
    redis.call('HDEL', errors, id)
    if record then
      redis.call('HDEL', jobs, id)
      local queue = string.sub(record, 1, string.find(record, '\n', 1, true) - 1)
      redis.call('HINCRBY', counts, queue .. '|pending', -1)
      redis.call('HINCRBY', counts, queue .. '|dispatched', 1)
      local sched = redis.call('HGET', schedules, sid)
      if sched then
        local v, pending, runs, _, rest = string.match(sched, '^(%d+)\n(%d*)\n(%d+)\n(%d*)\n(.*)$')
        if v == version and pending == at then
          local next = nextAfterIt
          if next >= 0 and next <= now then next = nextAfterNow end
          if next >= 0 then successor(record, sid, next, bucket, bucketNo) end
          redis.call('HSET', schedules, sid,
            v .. '\n' .. (next >= 0 and next or '') .. '\n' .. (tonumber(runs) + 1) .. '\n' .. at .. '\n' .. rest)
        end
      end
    end
    acked = acked + 1
  end
end
return acked
