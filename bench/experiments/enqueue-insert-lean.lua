--[[
  Experiment for docs/benchmarks.md (bench/profile.ts enqueue-variant), not used by the engine: the insert path of
  lua/enqueue.lua for a new id, with 5-6 redis.call()s instead of 8. Same KEYS / ARGV as lua/enqueue.lua.
  - HSETNX both checks that the id is free and writes the record (was HGET + HSET);
  - ZADD index LT CH keeps the bucket's index score = its earliest due time without reading the bucket back
    (was ZRANGE bucket + ZADD index): for an insert, the earliest can only go down to this job's due time;
  - the shard's head (ZRANGE index 0 0) is read only when this job lowered its bucket's score.
  The existing-id and upsert paths (not measured here) would keep today's code.
]]
local jobs, index, bucket, counts = KEYS[1], KEYS[2], KEYS[3], KEYS[8]
local id, bucketNo, queue, groupId, payload, kind, when, wake =
  ARGV[1], ARGV[2], ARGV[4], ARGV[5], ARGV[6], ARGV[7], tonumber(ARGV[8]), ARGV[9]
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local due = kind == 'delay' and now + when or math.max(when, now)
local function b36(n)
  local digits, s = '0123456789abcdefghijklmnopqrstuvwxyz', ''
  repeat
    local d = n % 36
    s = string.sub(digits, d + 1, d + 1) .. s
    n = math.floor(n / 36)
  until n == 0
  return s
end
if redis.call('HSETNX', jobs, id, queue .. '\n' .. b36(now) .. '\n0\n' .. groupId .. '\n' .. payload) == 0 then
  return { -1 }
end
redis.call('ZADD', bucket, due, id)
redis.call('HINCRBY', counts, queue .. '|pending', 1)
if redis.call('ZADD', index, 'LT', 'CH', due, bucketNo) == 1 then
  local first = redis.call('ZRANGE', index, 0, 0, 'WITHSCORES')
  if first[1] == bucketNo and tonumber(first[2]) == due then redis.call('PUBLISH', wake, due .. ':' .. bucketNo) end
end
return { 1, due, now, 0 }
