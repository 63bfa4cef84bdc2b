-- Remove a job (scheduled, waiting for a retry, or dead) and return 1, unless a scanner holds its lease right now
-- (it is being sent: -2, it stays) or a failed send may have reached SQS (maybeSent: -5, it stays). An absent job
-- counts as removed. Cancel is this, and the schedule scripts drop a replaced or deleted schedule's pending
-- occurrence with it.
-- k: the shard's keys by name (jobs, index, bucket, inflight, leases, errors, dead, counts). `evenIfMaybeSent`: the
-- schedule scripts drop an occurrence waiting to retry an ambiguous send too (what SQS may hold is not sent again).
local function dropUnleased(k, bucketNo, id, evenIfMaybeSent)
  local record = redis.call('HGET', k.jobs, id)
  if not record then return 1 end
  local lease = redis.call('HGET', k.leases, id)
  if lease and not waitsForRetry(lease) then return -2 end
  if not evenIfMaybeSent and maybeSent(k.errors, id) then return -5 end
  local queue = queueOf(record)
  if redis.call('ZREM', k.bucket, id) == 1 then
    reindexBucket(k.index, k.bucket, bucketNo)
    countBy(k.counts, queue, 'pending', -1)
  elseif lease then
    redis.call('ZREM', k.inflight, id)
    redis.call('HDEL', k.leases, id)
    countBy(k.counts, queue, 'pending', -1)
  elseif redis.call('ZREM', k.dead, id) == 1 then
    countBy(k.counts, queue, 'dead', -1)
  end
  redis.call('HDEL', k.errors, id)
  redis.call('HDEL', k.jobs, id)
  return 1
end
