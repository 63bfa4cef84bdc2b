#!lua
--[[
  schedule-put: create or replace a recurring schedule, and (re)place its pending occurrence.

  KEYS[1] schedules    HASH  schedule id -> record "version\npendingMs\nruns\nlastRunMs\ncreatedAtMs\nspec\npayload"
  KEYS[2] scheduleIds  ZSET  schedule id -> 0 (listing in id order)
  KEYS[3..10] jobs, index, bucket, inflight, leases, errors, dead, counts: the job side around the schedule's bucket
              (all its occurrences live in that bucket)
  KEYS[11] tags        ZSET  the shard's tag index: the occurrence carries the schedule's tags (indexTags)
  KEYS[12] scheduleTags ZSET "<tag>\n<schedule id>" -> 0 for each tag of each schedule: the old tags' go, the new come

  ARGV[1]  id        schedule id
  ARGV[2]  bucketNo  the schedule's bucket number (its member in index)
  ARGV[3]  spec      JSON: the rule, queue, group, ... (opaque here)
  ARGV[4]  payload   JSON text
  ARGV[5]  queue     queue name
  ARGV[6]  groupId   "" for none
  ARGV[7]  first     first occurrence (epoch ms, decimal digits), -1 for none (paused, or ended)
  ARGV[8]  second    the occurrence after it, -1 for none: used when the first one's job exists already (a scanner
                     took it between the caller's clock reading and this script)
  ARGV[9]  wake      the shard's wake channel
  ARGV[10] expected  expected version, "" for any: a pause / resume applies only to the version it read
  ARGV[11] tags      the schedule's tags, "\n"-separated ("" for none): each occurrence's record carries them

  The old pending occurrence is removed (also one waiting to retry a send that may have reached SQS) unless a scanner
  holds it right now; then it goes out, and its ack creates nothing (the schedule no longer names it as pending), or,
  refused, it is retired, not retried (lua/release.lua). Runs, last run and creation time survive a replace.
  Returns { 1 created | 2 replaced, version, pendingMs or -1, runs, lastRunMs or -1, createdAtMs }
  Refused whole by Redis at maxmemory (the shebang makes Redis check memory before it runs): OOM, which the store
  reports as StoreFullError (507).
  Error codes (first element):
     0 SCHEDULE_NOT_FOUND  an expected version was given and there is no such schedule
    -4 SCHEDULE_CHANGED    an expected version was given and the schedule has another one
  Helpers: jobSideKeys, nowMs, encodeRecord, occurrenceId, decodeSchedule, encodeSchedule, dropUnleased, recordTags, indexTags, addOccurrence
]]
local k = jobSideKeys(3)
k.schedules, k.scheduleIds, k.tags = KEYS[1], KEYS[2], KEYS[11]
local sid, bucketNo, spec, payload, queue, groupId = ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5], ARGV[6]
-- Occurrence times stay the caller's decimal text: Lua prints numbers of 1e14 and more in exponent form.
local first, second, wake, expected, tags = ARGV[7], ARGV[8], ARGV[9], ARGV[10], ARGV[11]
local now = nowMs()

local version, runs, lastRun, createdAt = 1, '0', '', now
local old = redis.call('HGET', k.schedules, sid)
if expected ~= '' and not old then return { 0 } end
if old then
  local oldVersion, oldPending, oldRuns, oldLast, oldCreated, oldRest = decodeSchedule(old)
  if expected ~= '' and oldVersion ~= expected then return { -4 } end
  version = tonumber(oldVersion) + 1
  -- The spec (the line before the payload) is JSON; its tags, when it has some, name the entries to take out.
  local oldTags = cjson.decode(string.match(oldRest, '^[^\n]*')).tags
  if type(oldTags) == 'table' then indexTags(KEYS[12], 'ZREM', table.concat(oldTags, '\n'), sid) end
  runs, lastRun, createdAt = oldRuns, oldLast, tonumber(oldCreated)
  if oldPending ~= '' then
    local oldId = occurrenceId(sid, oldPending)
    local record = redis.call('HGET', k.jobs, oldId)
    if record and dropUnleased(k, bucketNo, oldId, true) == 1 then indexTags(k.tags, 'ZREM', recordTags(record), oldId) end
  end
end

local pending = ''
if first ~= '-1' and redis.call('HEXISTS', k.jobs, occurrenceId(sid, first)) == 0 then
  pending = first
elseif second ~= '-1' and redis.call('HEXISTS', k.jobs, occurrenceId(sid, second)) == 0 then
  pending = second
end
if pending ~= '' then
  addOccurrence(k, bucketNo, wake, sid, pending, queue, encodeRecord(queue, now, 0, groupId, payload, '', '', tags))
end

redis.call('HSET', k.schedules, sid, encodeSchedule(version, pending, runs, lastRun, createdAt, spec .. '\n' .. payload))
redis.call('ZADD', k.scheduleIds, 0, sid)
indexTags(KEYS[12], 'ZADD', tags, sid)
return { old and 2 or 1, version, tonumber(pending) or -1, tonumber(runs), tonumber(lastRun) or -1, createdAt }
