#!lua flags=allow-oom
--[[
  claim: lease a bounded batch of due jobs to one scanner.

  KEYS[1] jobs      HASH  id -> record
  KEYS[2] index     ZSET  bucket number -> earliest due time in that bucket
  KEYS[3] inflight  ZSET  id -> lease expiry or retry time (ms)
  KEYS[4] leases    HASH  id -> lease (lua/includes/encodeLease.lua)
  KEYS[5] errors    HASH  id -> last dispatch error (JSON; a dead job's carries its due time, `due`)
  KEYS[6] dead      ZSET  id -> time it died (ms)
  KEYS[7] counts    HASH  "<queue>|<state>" -> count
  KEYS[8..] buckets ZSET  the due buckets the caller expects to be due (hints from the previous claim)

  ARGV[1] limit        most jobs to lease
  ARGV[2] leaseMs      lease length (ms)
  ARGV[3] token        claim token (random, one per call)
  ARGV[4] maxAttempts  a job whose lease expired this many times (its scanners died) goes to the dead set; a job
                       released for a retry is taken again whatever its counts (lua/release.lua decides those)
  ARGV[5] hintCap      most bucket hints to return for the next call
  ARGV[6] lookaheadMs  hints: the buckets due by max(now, earliest bucket's due time) + this, earliest first (at
                       most hintCap); only the earliest bucket when that is due later than now + this and fullCount
                       is 0 (with a window, an idle shard's claim reads the range too, for its fullAt). The
                       scanner passes 25 ms + its dispatch window: it claims next at the earliest due time + window
  ARGV[7] fullCount    with a dispatch window, the jobs that fill one SendMessageBatch (10); 0 without a window
  ARGV[8] fullBy       0, or the fullAt of the previous reply when the caller woke for a full request: take only
                       the scheduled jobs due by then, fullCount at most (the full request; the jobs due since are
                       inside their window). Jobs whose window has ended are taken whatever fullBy says, but within
                       those fullCount when fullBy is later than their window's end: they are the earliest, so they go
                       first, and any beyond fullCount (several in one bucket) go in the next claim, at once
  ARGV[9] windowMs     the caller's dispatch window (with fullBy)
  ARGV[10..] bucketNos bucket numbers of KEYS[8..], in the same order

  Returns { now, nextDue, needHints, more, hints, jobs, nextInflight, fullAt, dueBy }
    now        Redis time (ms); lets the caller track the offset between its clock and Redis's
    nextDue    earliest time anything is due (a bucket or an inflight lease/retry), -1 when nothing is pending
    needHints  1 when a due bucket was not among KEYS: call again at once with the returned hints
    more       1 when the limit was reached: call again at once
    hints      bucket numbers of the earliest buckets, for the next call's KEYS
    jobs       flat list: id, record, dueMs, attempt, orderMs, ...: orderMs is the job's place in its FIFO group's
               order (src/scan/loop/fifo-merge.ts): its due time, or for a job released for a retry the retry time
               it was released for (its score in the inflight set)
    nextInflight  the earliest lease expiry or retry time, -1 when none: the caller's dispatch window holds
               scheduled jobs, not retries
    fullAt     a time by which at least fullCount jobs are due (the fullCount-th earliest bucket's due time: every
               bucket's earliest is a job of its own; with fewer buckets due within the look-ahead, the fullCount-th
               earliest job in them), -1 when fewer are due within the look-ahead or fullCount is 0: the caller need
               not hold a window past it, its jobs fill a request
    dueBy      the latest due time this call took scheduled jobs up to (now, or earlier for a full request's
               claim): with needHints and more at 0, no job due by then is left in the buckets (src/scan/loop/fifo-merge.ts)

  Order: expired leases and due retries first (they are the oldest), then due jobs by due time. Jobs due in the
  same millisecond come out bucket by bucket (bucket = hash of the id) and by id within a bucket.
  Runs when Redis is at maxmemory too (the allow-oom flag on the first line): the queue must drain when it is full,
  and this script frees memory or holds it about level.
  Error codes: none.
  Helpers: nowMs, movePending, reindexBucket, encodeLease, decodeLease, waitsForRetry
]]
local jobs, index, inflight, leases, errors, dead, counts =
  KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6], KEYS[7]
local limit, leaseMs, token, maxAttempts, hintCap, lookahead, fullCount, fullBy, windowMs =
  tonumber(ARGV[1]), tonumber(ARGV[2]), ARGV[3], tonumber(ARGV[4]), tonumber(ARGV[5]), tonumber(ARGV[6]),
  tonumber(ARGV[7]), tonumber(ARGV[8]), tonumber(ARGV[9])

local now = nowMs()
-- Scheduled jobs due by this time are taken. A claim for a full request stops at its tenth job: the few that fell
-- due while the claim was on its way would otherwise go in a second, nearly empty request.
-- Ten at most, or a job due in the same millisecond as the tenth would go alone in a second request.
local dueBy, take = now, limit
if fullBy > 0 then
  dueBy = math.min(now, math.max(fullBy, now - windowMs))
  if dueBy == fullBy then take = math.min(limit, fullCount) end
end
local leaseUntil = now + leaseMs
local out, n = {}, 0

local function addClaimed(id, record, due, attempt, orderAt)
  out[#out + 1] = id; out[#out + 1] = record; out[#out + 1] = due; out[#out + 1] = attempt
  out[#out + 1] = orderAt
  n = n + 1
end

-- 1. Leases that expired (their scanner died) and released jobs whose retry time has come. An idle scanner calls
-- this every poll interval: look at the head first, and scan only when something is due. Returns the head and
-- whether anything was looked at.
local function retakeExpired()
  local leaseHead = redis.call('ZRANGE', inflight, 0, 0, 'WITHSCORES')
  local expired = {}
  if leaseHead[1] and tonumber(leaseHead[2]) <= now then
    expired = redis.call('ZRANGE', inflight, '-inf', now, 'BYSCORE', 'LIMIT', 0, limit, 'WITHSCORES')
  end
  for e = 1, #expired, 2 do
    local id, score = expired[e], expired[e + 1]
    local held = redis.call('HGET', leases, id)
    local record = redis.call('HGET', jobs, id)
    if not held or not record then
      redis.call('ZREM', inflight, id)
      redis.call('HDEL', leases, id)
    else
      local attempt, due, recoveries, faults = decodeLease(held)
      -- A lease that expired (not one released for a retry) is a crash recovery, counted apart from dispatch
      -- attempts: a job that SQS turned away many times during an outage and then lost one scanner is not dying.
      -- Scanners that keep dying on the same job (maxAttempts expired leases) send it to the dead set. A released
      -- job whose retry time came is retried whatever its counts: release.lua already decided it may live.
      local crashed = not waitsForRetry(held)
      if crashed then recoveries = recoveries + 1 end
      if crashed and recoveries >= maxAttempts then
        redis.call('ZREM', inflight, id)
        redis.call('HDEL', leases, id)
        redis.call('ZADD', dead, now, id)
        redis.call('HSET', errors, id, cjson.encode({ attempts = attempt, at = now, due = due,
          message = 'lease expired ' .. recoveries .. ' times: the scanners holding it stopped before acknowledging' }))
        movePending(counts, record, 'dead')
      else
        attempt = attempt + 1
        redis.call('ZADD', inflight, leaseUntil, id)
        redis.call('HSET', leases, id, encodeLease(attempt, due, token, recoveries, faults))
        -- A retry keeps the place it was released for (its retry time); an expired lease its due time.
        addClaimed(id, record, due, attempt, crashed and due or score)
      end
    end
  end
  return leaseHead, #expired > 0
end

-- The hinted buckets' keys (KEYS[8..]) by bucket number: the buckets this call may read.
local hinted = {}
for i = 8, #KEYS do hinted[ARGV[i + 2]] = KEYS[i] end

-- 2. Due jobs, merged across buckets in due-time order: take from the earliest bucket every job that is due
-- no later than the second-earliest bucket's first job, then look again. Returns the index's head (its first two
-- buckets) and 1 when a due bucket was not among KEYS.
local function takeDue()
  -- Lease writes are gathered across buckets and written once at the end: a burst visits a bucket per job or two.
  local leased, leaseValues = {}, {}
  local needHints = 0
  local top = redis.call('ZRANGE', index, 0, 1, 'WITHSCORES')
  while n < take do
    if not top[1] or tonumber(top[2]) > dueBy then break end
    local bucketNo = top[1]
    local bucket = hinted[bucketNo]
    if not bucket then
      needHints = 1
      break
    end
    local upto = dueBy
    if top[4] and tonumber(top[4]) < upto then upto = tonumber(top[4]) end
    local picked = redis.call('ZRANGE', bucket, '-inf', upto, 'BYSCORE', 'WITHSCORES', 'LIMIT', 0, take - n)
    local removed = {}
    for j = 1, #picked, 2 do
      local id, due = picked[j], picked[j + 1]
      local record = redis.call('HGET', jobs, id)
      removed[#removed + 1] = id
      if record then
        leased[#leased + 1] = leaseUntil; leased[#leased + 1] = id
        leaseValues[#leaseValues + 1] = id; leaseValues[#leaseValues + 1] = encodeLease(1, due, token)
        addClaimed(id, record, due, 1, due)
      end
    end
    if #removed == 0 then
      -- The index was stale for this bucket (cannot happen through these scripts; heal it rather than spin).
      redis.call('ZREM', index, bucketNo)
    else
      redis.call('ZREM', bucket, unpack(removed))
      reindexBucket(index, bucket, bucketNo)
    end
    top = redis.call('ZRANGE', index, 0, 1, 'WITHSCORES')
  end
  if #leased > 0 then
    redis.call('ZADD', inflight, unpack(leased))
    redis.call('HSET', leases, unpack(leaseValues))
  end
  return top, needHints
end

-- Fewer than fullCount buckets are due within the look-ahead, but they may hold fullCount jobs between them (few
-- buckets, or a burst): the fullCount-th earliest due time of their jobs (a bucket not among KEYS counts its earliest
-- only), or -1. At most fullCount - 1 small reads.
local function fullAtInFewBuckets(scored, upto)
  local dues = {}
  for j = 1, #scored, 2 do
    local bucket = hinted[scored[j]]
    if bucket then
      local firsts = redis.call('ZRANGE', bucket, '-inf', upto, 'BYSCORE', 'WITHSCORES', 'LIMIT', 0, fullCount)
      for k = 2, #firsts, 2 do dues[#dues + 1] = tonumber(firsts[k]) end
    else
      dues[#dues + 1] = tonumber(scored[j + 1])
    end
  end
  if #dues < fullCount then return -1 end
  table.sort(dues)
  return dues[fullCount]
end

-- 3. What the caller needs for its next call: when to come back, and which buckets to bring. Only the buckets due
-- soon: a claim carries its hints in and out, and a stream of 2-job claims must not haul hundreds of keys each time.
local function nextCall(top, leaseHead, leasesMoved)
  local nextDue, fullAt = -1, -1
  local hints = {}
  if top[1] then
    nextDue = tonumber(top[2])
    -- With a window (fullCount > 0) a far-off first job gets the range read too: its claim must know when its
    -- first request is full, and bring every bucket of it, or a shard waking from idle would hold its first ten
    -- jobs for the whole window, or split them over two claims.
    if nextDue > now + lookahead and fullCount == 0 then
      -- An idle or sparse shard: one hint and no range read (an idle shard's claim stays this cheap). Should more
      -- buckets be due by its next claim, that claim asks for them (needHints).
      hints = { top[1] }
    else
      -- The look-ahead counts from the next claim: with a dispatch window that is the earliest due time + the
      -- window, and every bucket due by then must come along, or the window's jobs would need two claims.
      local scored = redis.call('ZRANGE', index, '-inf', math.max(now, nextDue) + lookahead, 'BYSCORE', 'WITHSCORES',
        'LIMIT', 0, hintCap)
      for j = 1, #scored, 2 do hints[#hints + 1] = scored[j] end
      if fullCount > 0 and #hints >= fullCount then
        fullAt = tonumber(scored[2 * fullCount])
      elseif fullCount > 0 then
        fullAt = fullAtInFewBuckets(scored, math.max(now, nextDue) + lookahead)
      end
    end
  end
  if leasesMoved then leaseHead = redis.call('ZRANGE', inflight, 0, 0, 'WITHSCORES') end
  local nextInflight = leaseHead[1] and tonumber(leaseHead[2]) or -1
  if nextInflight >= 0 and (nextDue < 0 or nextInflight < nextDue) then nextDue = nextInflight end
  return nextDue, hints, nextInflight, fullAt
end

local leaseHead, retook = retakeExpired()
local top, needHints = takeDue()
local nextDue, hints, nextInflight, fullAt = nextCall(top, leaseHead, n > 0 or retook)
return { now, nextDue, needHints, (n >= limit) and 1 or 0, hints, out, nextInflight, fullAt, dueBy }
