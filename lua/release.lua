#!lua flags=allow-oom
--[[
  release: give back jobs that SQS refused, for the lease that tried them only.

  KEYS[1] jobs      HASH  id -> record
  KEYS[2] inflight  ZSET  id -> lease expiry or retry time (ms)
  KEYS[3] leases    HASH  id -> lease (lua/includes/encodeLease.lua)
  KEYS[4] errors    HASH  id -> last dispatch error (JSON; a dead job's carries its due time, `due`)
  KEYS[5] dead      ZSET  id -> time it died (ms)
  KEYS[6] counts    HASH  "<queue>|<state>" -> count
  KEYS[7] schedules HASH  schedule id -> record (lua/includes/decodeSchedule.lua)
  KEYS[8] tags      ZSET  the shard's tag index: a retired occurrence's entries (its schedule's tags) go with it

  ARGV[1] maxAttempts    refusals that are the job's fault before it goes to the dead set
  ARGV[2] maxAheadMs     how far past this script's clock an absolute retry time may lie (0: no bound). Later times
                         are all moved earlier by one amount, so that the latest is now + maxAheadMs: the caller's
                         reading of this primary's clock was wrong (a failover to a primary whose clock is behind,
                         a Cluster master with a skewed clock), and its jobs must not be parked that far in the
                         future. One shift for the whole call keeps their order (a FIFO group's places); a later
                         call, clamped, lands later. Past times stay as they are (shifted, still past): a give-back
                         passes them on purpose.
  ARGV[3..] refusals     sextuples: id, claim token, error message, "1" when the refusal counts against the job
                         (SQS refused it as the sender's fault) or "0" when it does not (SQS down, throttling, a
                         server-side error), the retry time (drawn by the caller, exponential in the attempt,
                         capped, with jitter: src/scan/claims/backoff.ts): Redis ms, absolute (may be past), or
                         "+<ms>" counted from this script's clock; and "1" when SQS may have accepted the message all
                         the same (a timeout, a reset connection, a server error), else "0"
                         The scanner passes absolute times: the jobs of one FIFO group are released by several calls
                         (on several shards, on several masters of a Cluster), and their retry times are their order
                         (a claim reports it: lua/claim.lua, src/scan/loop/fifo-merge.ts), so it fixes them once, on
                         one clock. Counted from each script's clock, they would cross.

  A released job stays in the inflight set, scored by its retry time, with an empty token: the next claim after that
  time takes it again (attempt + 1). Refusals that are the job's fault are counted in its lease (faults), apart from
  its dispatch attempts: the maxAttempts-th sends it to the dead set with its error. A failure that is not the job's
  fault never counts: an SQS outage must not dead-letter every job due during it, and a job that waited out an
  outage has the same budget as one that did not.
  A send that may have reached SQS marks the job's last error `maybeSent` (kept by every later release, until an ack
  removes the job): cancel and replace then refuse it (lua/includes/maybeSent.lua).
  An occurrence of a recurring schedule ("<schedule id>@<ms>") whose schedule no longer names it as pending (deleted,
  paused or replaced while it was being sent) is retired instead: removed, never retried, never dead. Its schedule
  was answered as settled; a send that may have reached SQS all the same is not repeated.
  Returns { released, dead, deadIds, retired }: deadIds lists the jobs that went to the dead set or were retired (a
  FIFO job's group stops waiting for them: src/scan/dispatch/lane.ts). A sextuple whose token no longer holds the job changes nothing.
  Runs when Redis is at maxmemory too (the allow-oom flag on the first line): the queue must drain when it is full,
  and this script frees memory or holds it about level.
  Error codes: none.
  Helpers: nowMs, movePending, encodeLease, decodeLease, holdsLease, maybeSent, queueOf, countBy, parseOccurrenceId, decodeSchedule, recordTags, indexTags
]]
local jobs, inflight, leases, errors, dead, counts = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6]
local schedules, tagIndex = KEYS[7], KEYS[8]
local maxAttempts = tonumber(ARGV[1])
local maxAhead = tonumber(ARGV[2])
local FIRST = 3

local now = nowMs()
local released, died, retired = 0, 0, 0
local deadIds = {}

-- Whether this is an occurrence its schedule has let go of.
local function letGo(id)
  local sid, at = parseOccurrenceId(id)
  if not sid then return false end
  local schedule = redis.call('HGET', schedules, sid)
  if not schedule then return true end
  local _, pending = decodeSchedule(schedule)
  return pending ~= at
end

-- How much every absolute retry time of this call moves earlier: the latest lands on now + maxAhead.
local shift = 0
if maxAhead > 0 then
  for i = FIRST, #ARGV, 6 do
    local field = ARGV[i + 4]
    if string.sub(field, 1, 1) ~= '+' then shift = math.max(shift, tonumber(field) - (now + maxAhead)) end
  end
end

-- A retry time: absolute (shifted), or "+<ms>" from now.
local function retryTime(field)
  if string.sub(field, 1, 1) == '+' then return now + tonumber(string.sub(field, 2)) end
  return tonumber(field) - shift
end

for i = FIRST, #ARGV, 6 do
  local id, token, message, jobsFault, retryAt = ARGV[i], ARGV[i + 1], ARGV[i + 2], ARGV[i + 3] == '1', ARGV[i + 4]
  local lease = redis.call('HGET', leases, id)
  if holdsLease(lease, token) and letGo(id) then
    local record = redis.call('HGET', jobs, id)
    redis.call('ZREM', inflight, id)
    redis.call('HDEL', leases, id)
    redis.call('HDEL', errors, id)
    if record then
      redis.call('HDEL', jobs, id)
      indexTags(tagIndex, 'ZREM', recordTags(record), id)
      countBy(counts, queueOf(record), 'pending', -1)
    end
    retired = retired + 1
    deadIds[#deadIds + 1] = id
  elseif holdsLease(lease, token) then
    local attempt, due, recoveries, faults = decodeLease(lease)
    if jobsFault then faults = faults + 1 end
    local lastError = { attempts = attempt, at = now, message = message }
    if ARGV[i + 5] == '1' or maybeSent(errors, id) then lastError.maybeSent = true end
    local dies = jobsFault and faults >= maxAttempts
    -- A dead job keeps its due time here (the dead set scores it by when it died): a write of it sent again is
    -- answered with the due time that write gave it (lua/enqueue.lua).
    if dies then lastError.due = due end
    redis.call('HSET', errors, id, cjson.encode(lastError))
    if dies then
      redis.call('ZREM', inflight, id)
      redis.call('HDEL', leases, id)
      redis.call('ZADD', dead, now, id)
      local record = redis.call('HGET', jobs, id)
      if record then
        movePending(counts, record, 'dead')
      end
      died = died + 1
      deadIds[#deadIds + 1] = id
    else
      redis.call('ZADD', inflight, retryTime(retryAt), id)
      redis.call('HSET', leases, id, encodeLease(attempt, due, '', recoveries, faults))
      released = released + 1
    end
  end
end
return { released, died, deadIds, retired }
