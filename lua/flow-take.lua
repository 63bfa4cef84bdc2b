#!lua flags=allow-oom
--[[
  flow-take: send times for jobs of one rate-limited flow name, from its token buckets on Redis's clock.

  KEYS[1] tat    STRING  the given times' bucket: the theoretical arrival time (ms) of the next job to be given a time
  KEYS[2] slots  ZSET    id -> send time (ms) given to a job held until then
  KEYS[3] sent   STRING  the sends' bucket: the theoretical arrival time (ms) of the next job let go

  ARGV[1] rate   jobs per second (> 0)
  ARGV[2] burst  jobs that may leave at once after a quiet spell (>= 1)
  ARGV[3..] ids  the jobs asking to leave now, in the order they should leave

  Both buckets are GCRA (a token bucket kept as one time): a job may go at max(now, tat - (burst - 1) / rate), which
  moves tat one interval on, so over any span L no more than burst + L x rate jobs pass one. The first (tat) gives
  each job a time, in the order jobs ask: a job that may not leave now is held until its time (its reservation, in
  slots) and then comes back without a new one, so a key's held jobs leave in the order they asked. The second (sent)
  counts the jobs let go: a job whose time has come leaves only if it has room, else it is held again for the sends'
  next free time, after the others this call holds so. Jobs that come back late together (their scanner was slow)
  thus never leave faster than the rate either: the promise holds for what leaves, on Redis's clock.
  A reservation more than RESERVATION_GRACE_MS old (its job was held for a pause meanwhile, or its scanner died) is
  not honoured: the job takes a new time, or it would leave ahead of the jobs given times since.
  Returns { now, at1, at2, ... }: 0 for a job that may leave now, else the time (ms, Redis's clock) it may leave.
  Runs when Redis is at maxmemory too (the allow-oom flag on the first line): it only moves jobs along.
  Error codes: none.
  Helpers: nowMs
]]
local tatKey, slots, sentKey = KEYS[1], KEYS[2], KEYS[3]
local rate, burst = tonumber(ARGV[1]), tonumber(ARGV[2])
local RESERVATION_GRACE_MS = 5000

local now = nowMs()
local interval = 1000 / rate
local tolerance = (burst - 1) * interval
-- Reservations whose jobs never came back (cancelled, sent by a crash recovery without asking) are dropped.
redis.call('ZREMRANGEBYSCORE', slots, '-inf', now - 3600000)
local tat = math.max(tonumber(redis.call('GET', tatKey)) or now, now)
local sent = math.max(tonumber(redis.call('GET', sentKey)) or now, now)
-- The sends' next free time for a job this call holds for want of room (each takes one after the last).
local nextFree = -1

local out = { now }
for i = 3, #ARGV do
  local id = ARGV[i]
  local reserved = tonumber(redis.call('ZSCORE', slots, id))
  local at = now
  if not (reserved and reserved >= now - RESERVATION_GRACE_MS) then
    at = math.max(now, tat - tolerance)
    tat = math.max(tat, at) + interval
  end
  if at <= now then
    local free = math.max(sent - tolerance, nextFree)
    if free <= now then
      sent = math.max(sent, now) + interval
      if reserved then redis.call('ZREM', slots, id) end
      out[#out + 1] = 0
    else
      at = math.ceil(free)
      nextFree = free + interval
    end
  end
  if at > now then
    at = math.ceil(at)
    redis.call('ZADD', slots, at, id)
    out[#out + 1] = at
  end
end
-- Kept while they hold a debt, then let expire: an idle key costs no memory.
redis.call('SET', tatKey, string.format('%.3f', tat), 'PX', math.ceil(tat - now + 60000))
redis.call('SET', sentKey, string.format('%.3f', sent), 'PX', math.ceil(sent - now + 60000))
if redis.call('ZCARD', slots) > 0 then redis.call('PEXPIRE', slots, math.ceil(tat - now + 3600000)) end
return out
