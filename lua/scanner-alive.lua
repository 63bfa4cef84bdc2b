--[[
  scanner-alive: on-demand scan mode, a scan run says it is alive on one shard (src/on-demand/run/presence.ts), and
  again every second while it runs. The marker is a set of the runs alive, so that each run removes only its own name: a
  run that ends never takes the marker away from another run still scanning.

  KEYS[1] scanner  ZSET  run name -> when its name lapses (ms); the key lives as long as its last name. The enqueue
                         script only asks whether it exists (lua/enqueue.lua).

  ARGV[1] owner  this run's name (the invocation's request id)
  ARGV[2] ttlMs  how long this name stands without a refresh

  Returns the number of runs alive on this shard (this one included).
  Error codes: none.
  Helpers: nowMs
]]
local scanner = KEYS[1]
local owner, ttlMs = ARGV[1], tonumber(ARGV[2])

local now = nowMs()
-- Names of runs that stopped refreshing (they died) go, so the key lapses with the last live run.
redis.call('ZREMRANGEBYSCORE', scanner, '-inf', now)
redis.call('ZADD', scanner, now + ttlMs, owner)
local last = redis.call('ZRANGE', scanner, -1, -1, 'WITHSCORES')
redis.call('PEXPIRE', scanner, math.max(1, tonumber(last[2]) - now))
return redis.call('ZCARD', scanner)
