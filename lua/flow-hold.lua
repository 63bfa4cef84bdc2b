#!lua flags=allow-oom
--[[
  flow-hold: hold leased jobs back from SQS for flow control (a pause, or a rate's later send time), pending still.

  KEYS[1] inflight  ZSET  id -> lease expiry or retry time (ms)
  KEYS[2] leases    HASH  id -> lease (lua/includes/encodeLease.lua)
  KEYS[3] epoch     STRING  the flow settings' version on this shard (lua/claim.lua returns it)
  KEYS[4..] held    ZSET  id -> place in due order (ms): the jobs held for a pause of one name, per shard

  ARGV[1] epoch      the settings' version the caller decided by: a job of a pause decided by an older version than
                     this shard's is not held (it may have been resumed since): it is taken again at once, decided anew
  ARGV[2] recheckMs  how long a job held for a pause waits before it is looked at again (a resume brings it forward)
  ARGV[3..] quintets: id, claim token, held (the index in KEYS of its pause's held set, or 0 for a rate's time),
                     at (Redis ms the job may leave: a rate's send time; ignored for a pause), place (a pause's: its
                     place in due order, which a resume gives back: its due time, a FIFO job's its group order;
                     ignored for a rate)

  A held job goes back to waiting in the inflight set, as a job released for a retry does (its token emptied), with
  its attempt not counted: the claim that takes it again counts one (lua/claim.lua), and holding sent nothing.
  Its lease's counters are kept. A held set keeps the first place a job was held with (a job held again after the
  recheck keeps its due order).
  Returns { held, retaken }: retaken counts the jobs of a pause whose epoch had moved (taken again at once).
  A quintet whose token no longer holds the job changes nothing.
  Error codes: none.
  Helpers: encodeLease, decodeLease, holdsLease, nowMs
]]
local inflight, leases, epochKey = KEYS[1], KEYS[2], KEYS[3]
local epoch, recheck = ARGV[1], tonumber(ARGV[2])

local now = nowMs()
local current = tonumber(redis.call('GET', epochKey) or '0')
local decidedBy = tonumber(epoch)
local held, retaken = 0, 0
for i = 3, #ARGV, 5 do
  local id, token, heldAt, at, orderAt = ARGV[i], ARGV[i + 1], tonumber(ARGV[i + 2]), ARGV[i + 3], ARGV[i + 4]
  local lease = redis.call('HGET', leases, id)
  if holdsLease(lease, token) then
    local attempt, due, recoveries, faults = decodeLease(lease)
    local untilMs = at
    if heldAt > 0 then
      if current > decidedBy then
        untilMs = orderAt
        retaken = retaken + 1
      else
        untilMs = now + recheck
        redis.call('ZADD', KEYS[heldAt], 'NX', orderAt, id)
      end
    end
    redis.call('ZADD', inflight, untilMs, id)
    redis.call('HSET', leases, id, encodeLease(math.max(attempt - 1, 0), due, '', recoveries, faults))
    held = held + 1
  end
end
return { held, retaken }
