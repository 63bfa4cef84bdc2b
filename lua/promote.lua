--[[
  promote: run one pending job now, or move it to another time (the dashboard's reschedule). Only its score changes:
  payload, queue, group, creation time and version stay, so it is the same job, and a job that is no longer pending
  is never created again (a dispatched one is gone: 404).

  KEYS[1..8] jobs, index, bucket, inflight, leases, errors, dead, counts: the job side around the job's bucket

  ARGV[1] id
  ARGV[2] bucketNo  the job's bucket number (its member in index)
  ARGV[3] wake      the shard's wake channel: published to when the job becomes the shard's earliest
  ARGV[4] kind      "now": run now (a job due already stays as it is) | "delay": due ARGV[5] ms after Redis's clock |
                    "at": due at ARGV[5] (epoch ms; the past means now)
  ARGV[5] when      the delay or the time; "" for "now"

  Returns { 1, dueMs, previousDueMs } when it was moved, { 2, dueMs } when it was due already ("now": unchanged).
  Error codes:
     0 JOB_NOT_FOUND    no such job (never existed, cancelled, or already in SQS)
    -2 JOB_DISPATCHING  a scanner holds it, or it waits for a dispatch retry: its dispatch is under way
    -7 JOB_DEAD         in the dead set: revive it (the dead set's retry), which is the action for a dead job
  Helpers: jobSideKeys, nowMs, reindexBucket, wakeIfEarliest
]]
local k = jobSideKeys(1)
local id, bucketNo, wake, kind = ARGV[1], ARGV[2], ARGV[3], ARGV[4]

local due = redis.call('ZSCORE', k.bucket, id)
if not due then
  if redis.call('HEXISTS', k.jobs, id) == 0 then return 0 end
  if redis.call('ZSCORE', k.dead, id) then return -7 end
  return -2
end
local now = nowMs()
due = tonumber(due)
local to = now
if kind == 'delay' then
  to = now + tonumber(ARGV[5])
elseif kind == 'at' then
  to = math.max(tonumber(ARGV[5]), now)
elseif due <= now then
  return { 2, due }
end
redis.call('ZADD', k.bucket, 'XX', to, id)
reindexBucket(k.index, k.bucket, bucketNo)
wakeIfEarliest(k.index, wake, bucketNo, to)
return { 1, to, due }
