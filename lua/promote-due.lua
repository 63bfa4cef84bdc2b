--[[
  promote-due: run now the pending jobs of one shard that are due before a time (of one queue, or of all), a slice of
  its due buckets at a time. Each job keeps its record (payload, creation time, version); only its score moves.

  Bounded: one run reads at most ARGV[4] jobs and ARGV[5] bytes of records, and answers where it stopped, so the caller
  goes on with the next run (src/store/promote.ts). Running it again is harmless: a promoted job is due, and due jobs
  are outside the range it moves (now, before).

  KEYS[1] jobs      HASH  id -> record (read only with a queue filter: its first field)
  KEYS[2] index     ZSET  bucket number -> earliest due time in that bucket
  KEYS[3..] buckets ZSET  id -> due time: the slice's buckets, numbers ARGV[6], ARGV[6] + 1, ...

  ARGV[1] beforeMs  jobs due before this (epoch ms, exclusive)
  ARGV[2] queue     only jobs of this queue; "" for all
  ARGV[3] skip      jobs of other queues to pass over in the slice's first bucket (where an earlier run stopped)
  ARGV[4] maxJobs   jobs read at most in this run (moved or passed over)
  ARGV[5] maxBytes  record bytes read at most in this run (queue filter only)
  ARGV[6] firstBucketNo
  ARGV[7] wake      the shard's wake channel

  Returns { promoted, stoppedAt, skip }: stoppedAt the slice position (0-based) to go on from, #buckets when the slice
  is done; skip the jobs of other queues to pass over there.
  Error codes: none.
  Helpers: nowMs, queueOf, reindexBucket, wakeIfEarliest
]]
local jobs, index = KEYS[1], KEYS[2]
local before, queue, skip = tonumber(ARGV[1]), ARGV[2], tonumber(ARGV[3])
local maxJobs, maxBytes, first, wake = tonumber(ARGV[4]), tonumber(ARGV[5]), tonumber(ARGV[6]), ARGV[7]

local now = nowMs()
local buckets = #KEYS - 2
if before <= now + 1 then return { 0, buckets, 0 } end

local numbers = {}
for i = 1, buckets do numbers[i] = tostring(first + i - 1) end
local earliest = redis.call('ZMSCORE', index, unpack(numbers))

local promoted, read, bytes = 0, 0, 0
for i = 1, buckets do
  local e = earliest[i]
  if e and tonumber(e) < before then
    local bucket, bucketNo = KEYS[i + 2], numbers[i]
    local room = maxJobs - read
    -- One more than there is room for: whether the bucket has more after this run's share.
    local ids = redis.call('ZRANGE', bucket, '(' .. now, '(' .. before, 'BYSCORE', 'LIMIT', skip, room + 1)
    local moved = 0
    for j = 1, math.min(#ids, room) do
      local id = ids[j]
      local mine = true
      if queue ~= '' then
        local record = redis.call('HGET', jobs, id)
        bytes = bytes + (record and #record or 0)
        mine = record ~= false and queueOf(record) == queue
      end
      read = read + 1
      if mine then
        redis.call('ZADD', bucket, 'XX', now, id)
        moved = moved + 1
      else
        skip = skip + 1
      end
      if bytes >= maxBytes and j < #ids then
        if moved > 0 then
          reindexBucket(index, bucket, bucketNo)
          wakeIfEarliest(index, wake, bucketNo, now)
        end
        return { promoted + moved, i - 1, skip }
      end
    end
    if moved > 0 then
      reindexBucket(index, bucket, bucketNo)
      wakeIfEarliest(index, wake, bucketNo, now)
    end
    promoted = promoted + moved
    if #ids > room then return { promoted, i - 1, skip } end
  end
  skip = 0
end
return { promoted, buckets, 0 }
