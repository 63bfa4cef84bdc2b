#!lua flags=allow-oom
--[[
  schedule-ack: forget occurrences that SQS accepted (as lua/ack.lua does for any job, for the lease that sent them
  only) and, in the same step, create each one's successor: no crash can separate the two.

  KEYS[1]   jobs       HASH  id -> record
  KEYS[2]   inflight   ZSET  id -> lease expiry or retry time (ms)
  KEYS[3]   leases     HASH  id -> "attempt:dueMs:token"
  KEYS[4]   errors     HASH  id -> last dispatch error
  KEYS[5]   counts     HASH  "<queue>|<state>" -> count
  KEYS[6]   schedules  HASH  schedule id -> record "version\npendingMs\nruns\nlastRunMs\ncreatedAtMs\nspec\npayload"
  KEYS[7]   index      ZSET  bucket number -> earliest due time in that bucket
  KEYS[8..] buckets    the schedules' due buckets

  ARGV[1]    wake         the shard's wake channel
  ARGV[2..]  occurrences  groups of 9: occurrence id, claim token, schedule id, occurrence time (ms), the schedule
                          version the caller computed from, the next occurrence after this one (-1: none, the
                          schedule ends), the next occurrence after the caller's now (-1: none), bucket number, index
                          in KEYS of that bucket

  Successor rule: only when the schedule exists, still has the version the caller read (a replace in between made
  its own pending occurrence) and still names this occurrence as pending (a replace or pause moved on). The next
  occurrence after this one is used while it is ahead of Redis's clock; if it has passed (an outage), the one after
  the caller's now: missed occurrences fire once, not once per miss.
  Returns the number of occurrences acknowledged.
  Runs when Redis is at maxmemory too (the allow-oom flag on the first line): the queue must drain when it is full,
  and this script frees memory or holds it about level.
  Error codes: none.
  Helpers: nowMs, base36, queueOf, movePending, holdsLease, decodeSchedule, encodeSchedule, addOccurrence
]]
local k = { jobs = KEYS[1], inflight = KEYS[2], leases = KEYS[3], errors = KEYS[4], counts = KEYS[5],
  schedules = KEYS[6], index = KEYS[7] }
local wake = ARGV[1]
local now = nowMs()

-- The successor carries the acknowledged occurrence's queue, group and payload (same schedule version, same
-- content), with a new creation time and version 0.
local function successor(record, sid, at, bucketNo)
  local q1 = string.find(record, '\n', 1, true)
  local q3 = string.find(record, '\n', string.find(record, '\n', q1 + 1, true) + 1, true)
  local queue = queueOf(record)
  addOccurrence(k, bucketNo, wake, sid .. '@' .. at, at, queue, queue .. '\n' .. base36(now) .. '\n0' .. string.sub(record, q3))
end

local acked = 0
for i = 2, #ARGV, 9 do
  local id, token, sid, at, version = ARGV[i], ARGV[i + 1], ARGV[i + 2], ARGV[i + 3], ARGV[i + 4]
  local nextAfterIt, nextAfterNow, bucketNo = tonumber(ARGV[i + 5]), tonumber(ARGV[i + 6]), ARGV[i + 7]
  if holdsLease(redis.call('HGET', k.leases, id), token) then
    local record = redis.call('HGET', k.jobs, id)
    redis.call('ZREM', k.inflight, id)
    redis.call('HDEL', k.leases, id)
    redis.call('HDEL', k.errors, id)
    if record then
      redis.call('HDEL', k.jobs, id)
      movePending(k.counts, record, 'dispatched')
      local schedule = redis.call('HGET', k.schedules, sid)
      if schedule then
        local v, pending, runs, _, createdAt, rest = decodeSchedule(schedule)
        if v == version and pending == at then
          local next = nextAfterIt
          if next >= 0 and next <= now then next = nextAfterNow end
          k.bucket = KEYS[tonumber(ARGV[i + 8])]
          if next >= 0 then successor(record, sid, next, bucketNo) end
          redis.call('HSET', k.schedules, sid,
            encodeSchedule(v, next >= 0 and next or '', tonumber(runs) + 1, at, createdAt, rest))
        end
      end
    end
    acked = acked + 1
  end
end
return acked
