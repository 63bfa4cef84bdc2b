#!lua
--[[
  walk-start: a walk through the pending list (GET /jobs by cursor, src/store/pending-walk.ts) makes its frontier on
  one shard: a copy of the shard's index (bucket -> earliest due time: a lower bound of every bucket's jobs, whatever
  the position), with the walk's position, listed in the shard's walks as used now. Never over a live frontier: when
  the walk holds a position (another page of it made one meanwhile), nothing changes. The walks the caller names
  (the least recently used beyond the cap, read just before) are dropped first, in the same step, and no frontier is
  made while the shard holds maxWalks of them: the cap holds even while pages start walks at once.
  "#!lua" without allow-oom: refused while Redis is at maxmemory (the page then reads the shard's index as it is).

  KEYS[1] index     ZSET    bucket number -> earliest due time (the shard's)
  KEYS[2] walks     ZSET    walk -> last used (ms, Redis's clock)
  KEYS[3] frontier  ZSET    this walk's: bucket number -> lower bound of that bucket's next job
  KEYS[4] at        STRING  this walk's position, "<page token>|<due ms>:<id>"
  KEYS[5..] dropped  the frontier and position keys of each walk to drop, in pairs, in the order of droppedWalks

  ARGV[1] walk          this walk's name
  ARGV[2] position      the position to hold, "<page token>|<due ms>:<id>" (the page's cursor)
  ARGV[3] ttlMs         how long the position stands unused (the frontier and the list: a minute more)
  ARGV[4] maxWalks      frontiers a shard keeps at most
  ARGV[5..] droppedWalks  names of the walks to drop (each only if still listed)

  Returns 1 when the frontier was made, 0 when not: the walk holds a position already, or the shard holds maxWalks
  walks (used since the caller read them).
  Error codes: none.
  Helpers: nowMs
]]
local index, walks, frontier, at = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local walk, position, ttlMs, maxWalks = ARGV[1], ARGV[2], tonumber(ARGV[3]), tonumber(ARGV[4])

if redis.call('EXISTS', at) == 1 then return 0 end
local now = nowMs()
-- Walks unused for longer than their keys live are gone already: only their names go.
redis.call('ZREMRANGEBYSCORE', walks, '-inf', now - ttlMs - 60000)
for i = 5, #ARGV do
  if redis.call('ZREM', walks, ARGV[i]) == 1 then
    redis.call('DEL', KEYS[2 * i - 5], KEYS[2 * i - 4])
  end
end
local others = redis.call('ZCARD', walks) - (redis.call('ZSCORE', walks, walk) and 1 or 0)
if others >= maxWalks then return 0 end
-- A frontier without its position (the position expires first) is read by no page: it is replaced.
redis.call('COPY', index, frontier, 'REPLACE')
redis.call('PEXPIRE', frontier, ttlMs + 60000)
redis.call('SET', at, position, 'PX', ttlMs)
redis.call('ZADD', walks, now, walk)
redis.call('PEXPIRE', walks, ttlMs + 60000)
return 1
