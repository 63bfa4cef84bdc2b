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
  ARGV[3] from      where an earlier run stopped in the slice's first bucket: the due time (ms) of the last job it read
                    there; 0 for the bucket's start
  ARGV[4] maxJobs   jobs read at most in this run (moved or passed over)
  ARGV[5] maxBytes  record bytes read at most in this run (queue filter only): the run stops once past it, at the end
                    of a bucket too
  ARGV[6] firstBucketNo
  ARGV[7] wake      the shard's wake channel
  ARGV[8] after     the id of that last job ("" with from 0). The walk goes on after (from, after) in the bucket's
                    own order (due time, then id), not after a count of the jobs passed over: those may have left the
                    bucket since (sent, cancelled, due), and a count would then pass over jobs it should move

  Returns { promoted, stoppedAt, from, after }: stoppedAt the slice position (0-based) to go on from, #buckets when the
  slice is done; from and after where to go on in that bucket (0 and "" at its start).
  Error codes: none.
  Helpers: nowMs, queueOf, reindexBucket, wakeIfEarliest
]]
local jobs, index = KEYS[1], KEYS[2]
local before, queue, from = tonumber(ARGV[1]), ARGV[2], tonumber(ARGV[3])
local maxJobs, maxBytes, first, wake, after = tonumber(ARGV[4]), tonumber(ARGV[5]), tonumber(ARGV[6]), ARGV[7], ARGV[8]

local now = nowMs()
local buckets = #KEYS - 2
if before <= now + 1 then return { 0, buckets, 0, '' } end

-- Jobs of `bucket` due at `from` that sort up to `after` (ZSET order: score, then member). A member just after it
-- ("\0" is in no id) is added for its rank and removed in the same step: exact also when `after` has left the bucket.
local function passedAt(bucket)
  local mark = after .. '\0'
  redis.call('ZADD', bucket, 'NX', from, mark)
  local rank = redis.call('ZRANK', bucket, mark)
  redis.call('ZREM', bucket, mark)
  return rank - redis.call('ZCOUNT', bucket, '-inf', '(' .. from)
end

local numbers = {}
for i = 1, buckets do numbers[i] = tostring(first + i - 1) end
local earliest = redis.call('ZMSCORE', index, unpack(numbers))

local promoted, read, bytes = 0, 0, 0
for i = 1, buckets do
  local e = earliest[i]
  if e and tonumber(e) < before then
    local bucket, bucketNo = KEYS[i + 2], numbers[i]
    local room = maxJobs - read
    -- Jobs moved leave the range (due now); jobs passed over stay, before (from, after).
    local low, skip = '(' .. now, 0
    if from > now then low, skip = from, passedAt(bucket) end
    -- One more than there is room for: whether the bucket has more after this run's share.
    local ids = redis.call('ZRANGE', bucket, low, '(' .. before, 'BYSCORE', 'LIMIT', skip, room + 1, 'WITHSCORES')
    local n = #ids / 2
    local moved = 0
    local function finish()
      if moved > 0 then
        reindexBucket(index, bucket, bucketNo)
        wakeIfEarliest(index, wake, bucketNo, now)
      end
      promoted = promoted + moved
    end
    for j = 1, math.min(n, room) do
      local id = ids[2 * j - 1]
      from, after = ids[2 * j], id
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
      end
      if bytes >= maxBytes then
        finish()
        if j < n then return { promoted, i - 1, from, after } end
        return { promoted, i, 0, '' }
      end
    end
    finish()
    if n > room then return { promoted, i - 1, from, after } end
  end
  from, after = 0, ''
end
return { promoted, buckets, 0, '' }
