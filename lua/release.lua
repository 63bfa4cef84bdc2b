--[[
  release: give back jobs that SQS refused, for the lease that tried them only.

  KEYS[1] jobs      HASH  id -> record
  KEYS[2] inflight  ZSET  id -> lease expiry or retry time (ms)
  KEYS[3] leases    HASH  id -> "attempt:dueMs:token"
  KEYS[4] errors    HASH  id -> last dispatch error (JSON)
  KEYS[5] dead      ZSET  id -> time it died (ms)
  KEYS[6] counts    HASH  "<queue>|<state>" -> count

  ARGV[1] maxAttempts    max dispatch attempts
  ARGV[2] backoffBaseMs  the retry waits base * 2^(attempt-1) ...
  ARGV[3] backoffMaxMs   ... but never longer than this
  ARGV[4..] refusals     quadruples: id, claim token, error message, "1" when the refusal counts against the job
                         (SQS refused it as the sender's fault) or "0" when it does not (SQS down, throttling, a
                         server-side error)

  A released job stays in the inflight set, scored by its retry time, with an empty token: the next claim after that
  time takes it again (attempt + 1). On its last attempt a counting refusal sends it to the dead set with its error;
  a failure that is not the job's fault never does: an SQS outage must not dead-letter every job due during it, so
  those retry at the capped backoff until SQS takes them.
  Returns { released, dead }. A quadruple whose token no longer holds the job changes nothing.
  Error codes: none.
  Helpers: nowMs, queueOf, countBy, encodeLease, decodeLease, holdsLease
]]
local jobs, inflight, leases, errors, dead, counts = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6]
local maxAttempts, base, cap = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])

local now = nowMs()
local released, died = 0, 0

for i = 4, #ARGV, 4 do
  local id, token, message, jobsFault = ARGV[i], ARGV[i + 1], ARGV[i + 2], ARGV[i + 3] == '1'
  local lease = redis.call('HGET', leases, id)
  if holdsLease(lease, token) then
    local attempt, due = decodeLease(lease)
    redis.call('HSET', errors, id, cjson.encode({ attempts = attempt, at = now, message = message }))
    if jobsFault and attempt >= maxAttempts then
      redis.call('ZREM', inflight, id)
      redis.call('HDEL', leases, id)
      redis.call('ZADD', dead, now, id)
      local record = redis.call('HGET', jobs, id)
      if record then
        local queue = queueOf(record)
        countBy(counts, queue, 'pending', -1)
        countBy(counts, queue, 'dead', 1)
      end
      died = died + 1
    else
      redis.call('ZADD', inflight, now + math.min(cap, base * 2 ^ (math.min(attempt, 40) - 1)), id)
      redis.call('HSET', leases, id, encodeLease(attempt, due, ''))
      released = released + 1
    end
  end
end
return { released, died }
