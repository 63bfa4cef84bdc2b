#!lua flags=allow-oom
--[[
  schedule-delete: remove a recurring schedule and its pending occurrence.

  KEYS[1] schedules    HASH  schedule id -> record "version\npendingMs\n..."
  KEYS[2] scheduleIds  ZSET  schedule id -> 0
  KEYS[3..10] jobs, index, bucket, inflight, leases, errors, dead, counts: the job side around the schedule's bucket
  KEYS[11] tags        ZSET  the shard's tag index: the removed occurrence's entries go with it (indexTags)
  KEYS[12] scheduleTags ZSET "<tag>\n<schedule id>" -> 0: the schedule's entries go

  ARGV[1] id        schedule id
  ARGV[2] bucketNo  the schedule's bucket number

  No occurrence is created after this returns: the pending one is removed (scheduled, waiting for a retry, also after
  a send that may have reached SQS, or dead), and one that a scanner holds right now goes out, but its ack finds no
  schedule, so it creates nothing; refused, it is retired, not retried (lua/release.lua).
  Returns 1 deleted.
  Runs when Redis is at maxmemory too (the allow-oom flag on the first line): the queue must drain when it is full,
  and this script frees memory or holds it about level.
  Error codes:
    0 SCHEDULE_NOT_FOUND  no such schedule
  Helpers: jobSideKeys, occurrenceId, decodeSchedule, dropUnleased, recordTags, indexTags
]]
local k = jobSideKeys(3)
k.schedules, k.scheduleIds = KEYS[1], KEYS[2]
local sid, bucketNo = ARGV[1], ARGV[2]

local old = redis.call('HGET', k.schedules, sid)
if not old then return 0 end
redis.call('HDEL', k.schedules, sid)
redis.call('ZREM', k.scheduleIds, sid)
local _, pending, _, _, _, rest = decodeSchedule(old)
-- The spec (the line before the payload) is JSON; its tags, when it has some, name the entries to take out.
local tags = cjson.decode(string.match(rest, '^[^\n]*')).tags
if type(tags) == 'table' then indexTags(KEYS[12], 'ZREM', table.concat(tags, '\n'), sid) end
if pending ~= '' then
  local id = occurrenceId(sid, pending)
  local record = redis.call('HGET', k.jobs, id)
  if record and dropUnleased(k, bucketNo, id, true) == 1 then indexTags(KEYS[11], 'ZREM', recordTags(record), id) end
end
return 1
