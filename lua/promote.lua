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
  A job waiting for a dispatch retry (released after a failed send: no lease, an error kept) is moved by "now" only:
  its retry comes now (its place in the inflight set), as the retry it waits for would (attempt counts unchanged).
  Error codes:
     0 JOB_NOT_FOUND    no such job (never existed, cancelled, or already in SQS)
    -2 JOB_DISPATCHING  a scanner holds it (its dispatch is under way), or it waits for a retry and "delay"/"at" asked
    -7 JOB_DEAD         in the dead set: revive it (the dead set's retry), which is the action for a dead job
    -8 JOB_HELD         flow control holds it (unleased in the inflight set without a failed send: a pause or a rate,
                        lua/flow-hold.lua, lua/includes/flowPace.lua): its resume or its rate lets it go, not this
  Helpers: jobSideKeys, nowMs, reindexBucket, wakeIfEarliest, waitsForRetry
]]
local k = jobSideKeys(1)
local id, bucketNo, wake, kind = ARGV[1], ARGV[2], ARGV[3], ARGV[4]

local due = redis.call('ZSCORE', k.bucket, id)
if not due then
  if redis.call('HEXISTS', k.jobs, id) == 0 then return 0 end
  if redis.call('ZSCORE', k.dead, id) then return -7 end
  local lease = redis.call('HGET', k.leases, id)
  if not (lease and waitsForRetry(lease)) then return -2 end
  if redis.call('HEXISTS', k.errors, id) == 0 then return -8 end
  if kind ~= 'now' then return -2 end
  local retryAt, now = tonumber(redis.call('ZSCORE', k.inflight, id)), nowMs()
  if retryAt <= now then return { 2, retryAt } end
  redis.call('ZADD', k.inflight, now, id)
  -- A sleeping scanner wakes for it (a hint of its bucket: the claim takes due retries before any bucket).
  redis.call('PUBLISH', wake, now .. ':' .. bucketNo)
  return { 1, now, retryAt }
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
