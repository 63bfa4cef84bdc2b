-- Create a schedule's occurrence as an ordinary scheduled job "<scheduleId>@<at>", unless that id exists (ids are
-- deterministic: an occurrence is never created twice). `record` is its job record (src/store/record.ts).
-- k: the shard's keys by name (jobs, index, bucket, counts); wake: the shard's wake channel.
local function addOccurrence(k, bucketNo, wake, id, at, queue, record)
  if redis.call('HSETNX', k.jobs, id, record) == 0 then return end
  redis.call('ZADD', k.bucket, at, id)
  countBy(k.counts, queue, 'pending', 1)
  if redis.call('ZADD', k.index, 'LT', 'CH', at, bucketNo) == 1 then wakeIfEarliest(k.index, wake, bucketNo, at) end
end
