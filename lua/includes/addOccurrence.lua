-- Create a schedule's occurrence as an ordinary scheduled job (occurrenceId), unless that id exists (ids are
-- deterministic: an occurrence is never created twice). `record` is its job record (encodeRecord).
-- k: the shard's keys by name (jobs, index, bucket, counts, and tags: the tag index, where the record's tags, the
-- schedule's, are indexed); wake: the shard's wake channel. `at`: the occurrence time as decimal text (the id is
-- built from it: Lua would print a number of 1e14 or more in exponent form).
local function addOccurrence(k, bucketNo, wake, scheduleId, at, queue, record)
  local id = occurrenceId(scheduleId, at)
  if redis.call('HSETNX', k.jobs, id, record) == 0 then return end
  indexTags(k.tags, 'ZADD', recordTags(record), id)
  redis.call('ZADD', k.bucket, at, id)
  countBy(k.counts, queue, 'pending', 1)
  if redis.call('ZADD', k.index, 'LT', 'CH', at, bucketNo) == 1 then
    wakeIfEarliest(k.index, wake, bucketNo, tonumber(at))
  end
end
