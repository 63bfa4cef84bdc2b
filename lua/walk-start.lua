#!lua
--[[
  walk-start: a walk through the pending list (GET /jobs by cursor, src/store/pending-walk.ts) makes its frontier on
  one shard: a copy of the shard's index (bucket -> earliest due time: a lower bound of every bucket's jobs, whatever
  the position), with the walk's position, listed in the shard's walks as used now. Never over a live frontier: when
  the walk holds a position (another page of it made one meanwhile), nothing changes. The caller names the shard's
  walks, least recently used first (read just before): as many of them as it takes are dropped, in the same step, to
  keep the shard below maxWalks with this one, and no frontier is made while it holds maxWalks: the cap holds even
  while pages start walks at once. While the budget (below) has no room, walks unused for idleMs are dropped too.
  Memory is reserved here, in the step that copies, so that pages starting walks at once cannot all pass a check made
  before any of them copied: the shard's walks together hold at most budgetBytes, or one walk's frontier when that
  alone is more (each reserves its index's buckets times bytesPerBucket, given back when it ends, is dropped or
  expires), and no copy takes this node's used_memory to
  memoryPercent of its maxmemory (read here with INFO; where an ACL refuses INFO, the budget alone holds). A write is
  never refused because of walks: they stop short of what enqueues need.
  "#!lua" without allow-oom: refused while Redis is at maxmemory (the page then reads the shard's index as it is).

  KEYS[1] index     ZSET    bucket number -> earliest due time (the shard's)
  KEYS[2] walks     ZSET    walk -> last used (ms, Redis's clock)
  KEYS[3] reserved  HASH    walk -> bytes its frontier holds (what counts against budgetBytes)
  KEYS[4] frontier  ZSET    this walk's: bucket number -> lower bound of that bucket's next job
  KEYS[5] at        STRING  this walk's position, "<page token>|<due ms>:<id>"
  KEYS[6..] candidates  the frontier and position keys of each walk that may be dropped, in pairs, in the order of
                       candidateWalks

  ARGV[1] walk          this walk's name
  ARGV[2] position      the position to hold, "<page token>|<due ms>:<id>" (the page's cursor)
  ARGV[3] ttlMs         how long the position stands unused (the frontier and the lists: a minute more)
  ARGV[4] maxWalks      frontiers a shard keeps at most
  ARGV[5] bytesPerBucket  what a frontier costs per bucket of the index
  ARGV[6] budgetBytes   what the shard's frontiers hold together at most
  ARGV[7] memoryPercent  no copy takes used_memory to this share of maxmemory (0: no such check)
  ARGV[8] idleMs        a walk unused this long may be dropped to make room in the budget
  ARGV[9..] candidateWalks  names of the shard's walks, least recently used first (each dropped only if still listed)

  Returns 1 when the frontier was made; 0 when the walk holds a position already; "full" when there is no room: the
  shard holds maxWalks walks (used since the caller read them), its budget is taken, or the node's memory is near full.
  Error codes: none.
  Helpers: nowMs
]]
local index, walks, reserved, frontier, at = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5]
local walk, position, ttlMs, maxWalks = ARGV[1], ARGV[2], tonumber(ARGV[3]), tonumber(ARGV[4])
local bytesPerBucket, budgetBytes, memoryPercent = tonumber(ARGV[5]), tonumber(ARGV[6]), tonumber(ARGV[7])
local idleMs = tonumber(ARGV[8])

if redis.call('EXISTS', at) == 1 then return 0 end
local now = nowMs()
-- Walks unused for longer than their keys live are gone already: only their names and reservations go.
local expired = redis.call('ZRANGEBYSCORE', walks, '-inf', now - ttlMs - 60000)
for _, gone in ipairs(expired) do redis.call('HDEL', reserved, gone) end
redis.call('ZREMRANGEBYSCORE', walks, '-inf', now - ttlMs - 60000)

local bytes = redis.call('ZCARD', index) * bytesPerBucket
local held = 0
for _, v in ipairs(redis.call('HVALS', reserved)) do held = held + tonumber(v) end
-- This walk's own earlier frontier (its position expired first) is replaced: its reservation is not counted twice.
held = held - (tonumber(redis.call('HGET', reserved, walk)) or 0)
local others = redis.call('ZCARD', walks) - (redis.call('ZSCORE', walks, walk) and 1 or 0)
for i = 9, #ARGV do
  local name = ARGV[i]
  local used = name ~= walk and tonumber(redis.call('ZSCORE', walks, name))
  if used and (others >= maxWalks or (held + bytes > budgetBytes and used <= now - idleMs)) then
    redis.call('ZREM', walks, name)
    redis.call('DEL', KEYS[2 * i - 12], KEYS[2 * i - 11])
    held = held - (tonumber(redis.call('HGET', reserved, name)) or 0)
    redis.call('HDEL', reserved, name)
    others = others - 1
  end
end
-- One walk is always let in (the memory check below still holds): a shard whose index alone is over the budget (more
-- than ~90,000 buckets as shipped) would otherwise refuse every deep page for good.
if others >= maxWalks or (held > 0 and held + bytes > budgetBytes) then return 'full' end
if memoryPercent > 0 then
  local info = redis.pcall('INFO', 'memory')
  if type(info) == 'string' then
    local used = tonumber(string.match(info, 'used_memory:(%d+)'))
    local max = tonumber(string.match(info, 'maxmemory:(%d+)'))
    if used and max and max > 0 and used + bytes >= max * memoryPercent / 100 then return 'full' end
  end
end

-- A frontier without its position (the position expires first) is read by no page: it is replaced.
redis.call('COPY', index, frontier, 'REPLACE')
redis.call('PEXPIRE', frontier, ttlMs + 60000)
redis.call('SET', at, position, 'PX', ttlMs)
redis.call('ZADD', walks, now, walk)
redis.call('PEXPIRE', walks, ttlMs + 60000)
redis.call('HSET', reserved, walk, bytes)
redis.call('PEXPIRE', reserved, ttlMs + 60000)
return 1
