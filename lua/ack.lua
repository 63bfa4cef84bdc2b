#!lua flags=allow-oom
--[[
  ack: forget jobs that SQS accepted, for the lease that sent them only.

  KEYS[1] jobs      HASH  id -> record
  KEYS[2] inflight  ZSET  id -> lease expiry or retry time (ms)
  KEYS[3] leases    HASH  id -> "attempt:dueMs:token"
  KEYS[4] errors    HASH  id -> last dispatch error
  KEYS[5] counts    HASH  "<queue>|<state>" -> count

  ARGV[1..] settlements  pairs: id, claim token, id, claim token, ...

  Returns the number of jobs acknowledged. A pair whose token no longer holds the job (the lease expired and
  another scanner took it, or it was released) changes nothing.
  Runs when Redis is at maxmemory too (the allow-oom flag on the first line): the queue must drain when it is full,
  and this script frees memory or holds it about level.
  Error codes: none.
  Helpers: movePending, holdsLease
]]
local jobs, inflight, leases, errors, counts = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5]
local acked = 0
for i = 1, #ARGV, 2 do
  local id, token = ARGV[i], ARGV[i + 1]
  if holdsLease(redis.call('HGET', leases, id), token) then
    local record = redis.call('HGET', jobs, id)
    redis.call('ZREM', inflight, id)
    redis.call('HDEL', leases, id)
    redis.call('HDEL', errors, id)
    if record then
      redis.call('HDEL', jobs, id)
      movePending(counts, record, 'dispatched')
    end
    acked = acked + 1
  end
end
return acked
