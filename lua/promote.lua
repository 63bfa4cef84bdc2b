--[[
  promote: run one pending job now. Its due time becomes Redis's clock; payload, queue, group, creation time and
  version stay as they are (nothing is rewritten but its score), so it is the same job, only earlier.

  KEYS[1..8] jobs, index, bucket, inflight, leases, errors, dead, counts: the job side around the job's bucket

  ARGV[1] id
  ARGV[2] bucketNo  the job's bucket number (its member in index)
  ARGV[3] wake      the shard's wake channel: published to when the job becomes the shard's earliest

  Returns { 1, dueMs, previousDueMs } when it was moved to now, { 2, dueMs } when it was due already (unchanged).
  Error codes:
     0 JOB_NOT_FOUND    no such job (never existed, cancelled, or already in SQS)
    -2 JOB_DISPATCHING  a scanner holds it, or it waits for a dispatch retry: its dispatch is under way
    -7 JOB_DEAD         in the dead set: revive it (the dead set's retry), which is the action for a dead job
  Helpers: jobSideKeys, nowMs, reindexBucket, wakeIfEarliest
]]
local k = jobSideKeys(1)
local id, bucketNo, wake = ARGV[1], ARGV[2], ARGV[3]

local due = redis.call('ZSCORE', k.bucket, id)
if not due then
  if redis.call('HEXISTS', k.jobs, id) == 0 then return 0 end
  if redis.call('ZSCORE', k.dead, id) then return -7 end
  return -2
end
local now = nowMs()
due = tonumber(due)
if due <= now then return { 2, due } end
redis.call('ZADD', k.bucket, 'XX', now, id)
reindexBucket(k.index, k.bucket, bucketNo)
wakeIfEarliest(k.index, wake, bucketNo, now)
return { 1, now, due }
