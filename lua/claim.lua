--[[
  claim: lease a bounded batch of due jobs to one scanner.

  KEYS[1] jobs      HASH  id -> record
  KEYS[2] index     ZSET  bucket number -> earliest due time in that bucket
  KEYS[3] inflight  ZSET  id -> lease expiry or retry time (ms)
  KEYS[4] leases    HASH  id -> "attempt:dueMs:token"
  KEYS[5] errors    HASH  id -> last dispatch error (JSON)
  KEYS[6] dead      ZSET  id -> time it died (ms)
  KEYS[7] counts    HASH  per-queue counters
  KEYS[8..]         due bucket ZSETs the caller expects to be due (hints from the previous claim)

  ARGV[1] limit: most jobs to lease
  ARGV[2] lease length (ms)
  ARGV[3] claim token (random, one per call)
  ARGV[4] max dispatch attempts: a lease that expires on the last attempt sends the job to the dead set
  ARGV[5] how many bucket hints to return for the next call
  ARGV[6..] bucket numbers of KEYS[8..], in the same order

  Returns { now, nextDue, needHints, more, hints, jobs }
    now        Redis time (ms); lets the caller track the offset between its clock and Redis's
    nextDue    earliest time anything is due (a bucket or an inflight lease/retry), -1 when nothing is pending
    needHints  1 when a due bucket was not among KEYS: call again at once with the returned hints
    more       1 when the limit was reached: call again at once
    hints      bucket numbers of the earliest buckets, for the next call's KEYS
    jobs       flat list: id, record, dueMs, attempt, ...

  Order: expired leases and due retries first (they are the oldest), then due jobs by due time. Jobs due in the
  same millisecond come out bucket by bucket (bucket = hash of the id) and by id within a bucket.
  Error codes: none.
]]
local jobs, index, inflight, leases, errors, dead, counts =
  KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6], KEYS[7]
local limit, leaseMs, token, maxAttempts, hintCap =
  tonumber(ARGV[1]), tonumber(ARGV[2]), ARGV[3], tonumber(ARGV[4]), tonumber(ARGV[5])

local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local leaseUntil = now + leaseMs
local out, n = {}, 0

local function queueOf(record)
  return string.sub(record, 1, string.find(record, '\n', 1, true) - 1)
end

-- 1. Leases that expired (their scanner died) and released jobs whose retry time has come.
local expired = redis.call('ZRANGE', inflight, '-inf', now, 'BYSCORE', 'LIMIT', 0, limit)
for _, id in ipairs(expired) do
  local lease = redis.call('HGET', leases, id)
  local record = redis.call('HGET', jobs, id)
  if not lease or not record then
    redis.call('ZREM', inflight, id)
    redis.call('HDEL', leases, id)
  else
    local attempt, due = string.match(lease, '^(%d+):(%d+):')
    attempt = tonumber(attempt)
    if attempt >= maxAttempts then
      redis.call('ZREM', inflight, id)
      redis.call('HDEL', leases, id)
      redis.call('ZADD', dead, now, id)
      if string.sub(lease, -1) ~= ':' then
        redis.call('HSET', errors, id, cjson.encode({ attempts = attempt, at = now,
          message = 'lease expired: the scanner holding it stopped before acknowledging' }))
      end
      local queue = queueOf(record)
      redis.call('HINCRBY', counts, queue .. '|pending', -1)
      redis.call('HINCRBY', counts, queue .. '|dead', 1)
    else
      attempt = attempt + 1
      redis.call('ZADD', inflight, leaseUntil, id)
      redis.call('HSET', leases, id, attempt .. ':' .. due .. ':' .. token)
      out[#out + 1] = id; out[#out + 1] = record; out[#out + 1] = due; out[#out + 1] = attempt
      n = n + 1
    end
  end
end

-- 2. Due jobs, merged across buckets in due-time order: take from the earliest bucket every job that is due
-- no later than the second-earliest bucket's first job, then look again.
local hinted = {}
for i = 8, #KEYS do hinted[ARGV[i - 2]] = KEYS[i] end

local needHints = 0
while n < limit do
  local top = redis.call('ZRANGE', index, 0, 1, 'WITHSCORES')
  if not top[1] or tonumber(top[2]) > now then break end
  local bucketNo = top[1]
  local bucket = hinted[bucketNo]
  if not bucket then
    needHints = 1
    break
  end
  local upto = now
  if top[4] and tonumber(top[4]) < upto then upto = tonumber(top[4]) end
  local picked = redis.call('ZRANGE', bucket, '-inf', upto, 'BYSCORE', 'WITHSCORES', 'LIMIT', 0, limit - n)
  local removed, leased, leaseValues = {}, {}, {}
  for j = 1, #picked, 2 do
    local id, due = picked[j], picked[j + 1]
    local record = redis.call('HGET', jobs, id)
    removed[#removed + 1] = id
    if record then
      leased[#leased + 1] = leaseUntil; leased[#leased + 1] = id
      leaseValues[#leaseValues + 1] = id; leaseValues[#leaseValues + 1] = '1:' .. due .. ':' .. token
      out[#out + 1] = id; out[#out + 1] = record; out[#out + 1] = due; out[#out + 1] = 1
      n = n + 1
    end
  end
  if #removed == 0 then
    -- The index was stale for this bucket (cannot happen through these scripts; heal it rather than spin).
    redis.call('ZREM', index, bucketNo)
  else
    redis.call('ZREM', bucket, unpack(removed))
    if #leased > 0 then
      redis.call('ZADD', inflight, unpack(leased))
      redis.call('HSET', leases, unpack(leaseValues))
    end
    local first = redis.call('ZRANGE', bucket, 0, 0, 'WITHSCORES')
    if first[1] then redis.call('ZADD', index, first[2], bucketNo) else redis.call('ZREM', index, bucketNo) end
  end
end

-- 3. What the caller needs for its next call: when to come back, and which buckets to bring.
local nextDue = -1
local firstBucket = redis.call('ZRANGE', index, 0, 0, 'WITHSCORES')
if firstBucket[1] then nextDue = tonumber(firstBucket[2]) end
local firstLease = redis.call('ZRANGE', inflight, 0, 0, 'WITHSCORES')
if firstLease[1] and (nextDue < 0 or tonumber(firstLease[2]) < nextDue) then nextDue = tonumber(firstLease[2]) end
local hints = redis.call('ZRANGE', index, 0, hintCap - 1)

return { now, nextDue, needHints, (n >= limit) and 1 or 0, hints, out }
