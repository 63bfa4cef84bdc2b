--[[
  scanner-retire: on-demand scan mode, a scan run takes its name off one shard's alive marker
  (src/on-demand/run/presence.ts): only its own name, and, when it ends for lack of work, only if nothing on the shard
  is due within the horizon. The look at the due times and the removal are one step, so an enqueue on this shard either
  came before (its job is seen: the run stays) or comes after (it sees no marker: it starts a scan). A run that ends
  also gives back the start guard it was started under, if that guard is still the one it was given.

  KEYS[1] scanner   ZSET    run name -> when its name lapses (ms): lua/scanner-alive.lua
  KEYS[2] index     ZSET    bucket number -> earliest due time in that bucket
  KEYS[3] inflight  ZSET    id -> lease expiry or retry time (ms)
  KEYS[4] start     STRING  the start guard: the token of the start in progress (lua/enqueue.lua)

  ARGV[1] owner      this run's name
  ARGV[2] horizonMs  refuse when anything is due sooner than this (ms from now); 0: remove the name whatever is due
  ARGV[3] token      the start guard's token this run was started under, "" for none

  Returns { 1, 0 } when the name was removed (or was not there), { 0, untilDueMs } when something is due within
  the horizon (the name stays).
  Error codes: none.
  Helpers: nowMs
]]
local scanner, index, inflight, start = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local owner, horizonMs, token = ARGV[1], tonumber(ARGV[2]), ARGV[3]

local now = nowMs()
if horizonMs > 0 then
  local next = math.huge
  for _, set in ipairs({ index, inflight }) do
    local head = redis.call('ZRANGE', set, 0, 0, 'WITHSCORES')
    if head[2] then next = math.min(next, tonumber(head[2])) end
  end
  if next < now + horizonMs then return { 0, next - now } end
end

if redis.call('TYPE', scanner).ok == 'zset' then
  redis.call('ZREM', scanner, owner)
  redis.call('ZREMRANGEBYSCORE', scanner, '-inf', now)
  local last = redis.call('ZRANGE', scanner, -1, -1, 'WITHSCORES')
  if last[2] then redis.call('PEXPIRE', scanner, math.max(1, tonumber(last[2]) - now)) end
end
if token ~= '' and redis.call('GET', start) == token then redis.call('DEL', start) end
return { 1, 0 }
