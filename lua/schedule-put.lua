--[[
  schedule-put: create or replace a recurring schedule, and (re)place its pending occurrence.

  KEYS[1]  schedules     HASH  schedule id -> record "version\npendingMs\nruns\nlastRunMs\ncreatedAtMs\nspec\npayload"
  KEYS[2]  schedule-ids  ZSET  schedule id -> 0 (listing in id order)
  KEYS[3]  jobs          HASH  job id -> record
  KEYS[4]  index         ZSET  bucket number -> earliest due time in that bucket
  KEYS[5]  bucket        ZSET  the schedule's due bucket (all its occurrences live there)
  KEYS[6]  inflight      ZSET  id -> lease expiry or retry time (ms)
  KEYS[7]  leases        HASH  id -> "attempt:dueMs:token"
  KEYS[8]  errors        HASH  id -> last dispatch error
  KEYS[9]  dead          ZSET  id -> time it died (ms)
  KEYS[10] counts        HASH  per-queue counters

  ARGV[1]  schedule id
  ARGV[2]  bucket number (member of KEYS[4])
  ARGV[3]  spec (JSON: the rule, queue, groupId, ...; never read here)
  ARGV[4]  payload (JSON text)
  ARGV[5]  queue name
  ARGV[6]  groupId ("" for none)
  ARGV[7]  first occurrence (epoch ms), -1 for none (paused, or ended)
  ARGV[8]  the occurrence after it, -1 for none: used when the first one's job exists already (a scanner took it
           between the caller's clock reading and this script)
  ARGV[9]  wake channel
  ARGV[10] expected version, "" for any: a pause / resume applies only to the version it read

  The old pending occurrence is removed unless a scanner holds it right now; then it goes out, and its ack creates
  nothing (the schedule's pending time no longer names it). Runs, last run and creation time survive a replace.
  Returns { 1 created | 2 replaced, version, pendingMs or -1, runs, lastRunMs or -1, createdAtMs }
  Error codes (first element):
     0 SCHEDULE_NOT_FOUND  an expected version was given and there is no such schedule
    -4 SCHEDULE_CHANGED    an expected version was given and the schedule has another one
]]
local schedules, scheduleIds, jobs, index, bucket, inflight, leases, errors, dead, counts =
  KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6], KEYS[7], KEYS[8], KEYS[9], KEYS[10]
local sid, bucketNo, spec, payload, queue, groupId = ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5], ARGV[6]
local first, second, wake, expected = tonumber(ARGV[7]), tonumber(ARGV[8]), ARGV[9], ARGV[10]

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

local function reindex()
  local head = redis.call('ZRANGE', bucket, 0, 0, 'WITHSCORES')
  if head[1] then redis.call('ZADD', index, head[2], bucketNo) else redis.call('ZREM', index, bucketNo) end
end

-- The pending occurrence goes the way lua/cancel.lua takes a job: scheduled, waiting for a retry, or dead. One that
-- a scanner holds stays (it is being sent); false then.
local function dropOccurrence(id)
  local record = redis.call('HGET', jobs, id)
  if not record then return true end
  local lease = redis.call('HGET', leases, id)
  if lease and string.sub(lease, -1) ~= ':' then return false end
  local q = string.sub(record, 1, string.find(record, '\n', 1, true) - 1)
  if redis.call('ZREM', bucket, id) == 1 then
    reindex()
    redis.call('HINCRBY', counts, q .. '|pending', -1)
  elseif lease then
    redis.call('ZREM', inflight, id)
    redis.call('HDEL', leases, id)
    redis.call('HINCRBY', counts, q .. '|pending', -1)
  elseif redis.call('ZREM', dead, id) == 1 then
    redis.call('HINCRBY', counts, q .. '|dead', -1)
  end
  redis.call('HDEL', errors, id)
  redis.call('HDEL', jobs, id)
  return true
end

local version, runs, lastRun, createdAt = 1, '0', '', now
local old = redis.call('HGET', schedules, sid)
if expected ~= '' and not old then return { 0 } end
if old then
  local oldVersion, oldPending, oldRuns, oldLast, oldCreated =
    string.match(old, '^(%d+)\n(%d*)\n(%d+)\n(%d*)\n(%d+)\n')
  if expected ~= '' and oldVersion ~= expected then return { -4 } end
  version = tonumber(oldVersion) + 1
  runs, lastRun, createdAt = oldRuns, oldLast, tonumber(oldCreated)
  if oldPending ~= '' then dropOccurrence(sid .. '@' .. oldPending) end
end

local pending = -1
if first >= 0 and redis.call('HEXISTS', jobs, sid .. '@' .. first) == 0 then
  pending = first
elseif second >= 0 and redis.call('HEXISTS', jobs, sid .. '@' .. second) == 0 then
  pending = second
end
if pending >= 0 then
  local id = sid .. '@' .. pending
  redis.call('HSET', jobs, id, queue .. '\n' .. b36(now) .. '\n0\n' .. groupId .. '\n' .. payload)
  redis.call('ZADD', bucket, pending, id)
  redis.call('HINCRBY', counts, queue .. '|pending', 1)
  reindex()
  local earliest = redis.call('ZRANGE', index, 0, 0, 'WITHSCORES')
  if earliest[1] == bucketNo and tonumber(earliest[2]) == pending then
    redis.call('PUBLISH', wake, pending .. ':' .. bucketNo)
  end
end

redis.call('HSET', schedules, sid, version .. '\n' .. (pending >= 0 and pending or '') .. '\n' .. runs .. '\n' ..
  lastRun .. '\n' .. createdAt .. '\n' .. spec .. '\n' .. payload)
redis.call('ZADD', scheduleIds, 0, sid)
return { old and 2 or 1, version, pending, tonumber(runs), tonumber(lastRun) or -1, createdAt }
