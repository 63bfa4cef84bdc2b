#!lua flags=allow-oom
--[[
  flow-take: send times for jobs of one rate-limited flow key, from its token bucket on Redis's clock.

  KEYS[1] tat    STRING  the bucket's theoretical arrival time (ms): the send time of the next job at the full rate
  KEYS[2] slots  ZSET    id -> send time (ms) reserved for a job held until then

  ARGV[1] rate   jobs per second (> 0)
  ARGV[2] burst  jobs that may leave at once after a quiet spell (>= 1)
  ARGV[3..] ids  the jobs asking to leave now, in the order they should leave

  The bucket is GCRA (a token bucket kept as one time): a job may leave at max(now, tat - (burst - 1) / rate) and moves
  tat one interval on, so over any span L no more than burst + L * rate jobs leave. A job that may not leave now is
  given the first free time after the ones already given (its reservation, in slots): held until then, it leaves
  without asking the bucket again, and jobs asking later get later times: held jobs leave in the order they asked.
  A reservation more than RESERVATION_GRACE_MS old (its job was held for a pause meanwhile, or its scanner died) is
  not honoured: the job takes a new time, or it would leave beside the jobs of the times after it.
  Returns { now, at1, at2, ... }: 0 for a job that may leave now, else the time (ms, Redis's clock) it may leave.
  Runs when Redis is at maxmemory too (the allow-oom flag on the first line): it only moves jobs along.
  Error codes: none.
  Helpers: nowMs
]]
local tatKey, slots = KEYS[1], KEYS[2]
local rate, burst = tonumber(ARGV[1]), tonumber(ARGV[2])
local RESERVATION_GRACE_MS = 5000

local now = nowMs()
local interval = 1000 / rate
local tolerance = (burst - 1) * interval
-- Reservations whose jobs never came back (cancelled, sent by a crash recovery without asking) are dropped.
redis.call('ZREMRANGEBYSCORE', slots, '-inf', now - 3600000)
local tat = math.max(tonumber(redis.call('GET', tatKey)) or now, now)

local out = { now }
for i = 3, #ARGV do
  local id = ARGV[i]
  local reserved = tonumber(redis.call('ZSCORE', slots, id))
  if reserved then redis.call('ZREM', slots, id) end
  if reserved and reserved >= now - RESERVATION_GRACE_MS then
    out[#out + 1] = 0
  else
    local at = math.max(now, tat - tolerance)
    tat = math.max(tat, at) + interval
    if at <= now then
      out[#out + 1] = 0
    else
      local slot = math.ceil(at)
      redis.call('ZADD', slots, slot, id)
      out[#out + 1] = slot
    end
  end
end
-- Kept while it still holds a debt (or the burst's refill), then let expire: an idle key costs no memory.
redis.call('SET', tatKey, string.format('%.3f', tat), 'PX', math.ceil(tat - now + tolerance + 60000))
if redis.call('ZCARD', slots) > 0 then redis.call('PEXPIRE', slots, math.ceil(tat - now + 3600000)) end
return out
