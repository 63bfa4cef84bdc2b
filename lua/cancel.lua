#!lua flags=allow-oom
--[[
  cancel: remove a job that has not been handed to SQS yet.

  KEYS[1..8] jobs, index, bucket, inflight, leases, errors, dead, counts: the job side around the job's bucket
  KEYS[9] schedules  HASH  schedule id -> record "version\npendingMs\n..." (lua/schedule-put.lua)
  KEYS[10] tags      ZSET  the shard's tag index: a cancelled job's entries go with it (indexTags)

  ARGV[1] id
  ARGV[2] bucketNo  the job's bucket number (its member in index)
  ARGV[3] scheduleId  the schedule an occurrence id ("<schedule id>@<ms>") names, "" for other jobs

  Returns 1 cancelled (scheduled, waiting for a retry, or dead)
  Runs when Redis is at maxmemory too (the allow-oom flag on the first line): the queue must drain when it is full,
  and this script frees memory or holds it about level.
  Error codes:
     0 JOB_NOT_FOUND    no such job (never existed, cancelled, or already in SQS)
    -2 JOB_DISPATCHING  a scanner holds a lease on it: it is being handed to SQS right now
    -3 OCCURRENCE_OF_SCHEDULE  the pending occurrence of its schedule: only its ack creates the next one, so
                               removing it would end the series (pause, replace or delete the schedule instead)
    -5 JOB_MAYBE_DISPATCHED  waiting for a dispatch retry after a send that SQS may have accepted (lua/release.lua):
                             it may run, so it cannot be called cancelled until the retry settles
  Helpers: jobSideKeys, occurrenceId, decodeSchedule, dropUnleased, recordTags, indexTags
]]
local k = jobSideKeys(1)
local schedules, tagIndex = KEYS[9], KEYS[10]
local id, bucketNo, scheduleId = ARGV[1], ARGV[2], ARGV[3]

local record = redis.call('HGET', k.jobs, id)
if not record then return 0 end
if scheduleId ~= '' then
  local schedule = redis.call('HGET', schedules, scheduleId)
  if schedule and occurrenceId(scheduleId, select(2, decodeSchedule(schedule))) == id then return -3 end
end
local dropped = dropUnleased(k, bucketNo, id)
if dropped == 1 then indexTags(tagIndex, 'ZREM', recordTags(record), id) end
return dropped
