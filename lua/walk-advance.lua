#!lua flags=allow-oom
--[[
  walk-advance: after a page of a walk (src/store/pending-walk.ts), raise the bounds of the buckets the page read and
  move the walk's position to the page's end, only if the walk still holds the position the page started from and is
  still listed (compare-and-set). Otherwise nothing is written: another page of the walk moved it, or it was dropped
  (the cap of walks per shard) or expired while the page read it, so the page may have read a frontier that changed
  under it (the caller reads the page again without it). A dropped frontier is never rebuilt: bounds are only
  raised on members that exist (ZADD XX), and only while the position stands.
  allow-oom: it grows nothing (members and a position that exist), and the walk's state stays right while Redis is full.

  KEYS[1] walks     ZSET    walk -> last used (ms, Redis's clock)
  KEYS[2] reserved  HASH    walk -> bytes its frontier holds (lua/walk-start.lua): given back when the walk ends
  KEYS[3] frontier  ZSET    this walk's: bucket number -> lower bound of that bucket's next job
  KEYS[4] at        STRING  this walk's position, "<page token>|<due ms>:<id>"

  ARGV[1] walk     this walk's name
  ARGV[2] held     the position the page started from, as it read it
  ARGV[3] next     the page's end, "<page token>|<due ms>:<id>"; "" when the walk ended (its keys are deleted)
  ARGV[4] ttlMs    how long the position stands unused (the frontier, the list and the reservations: a minute more)
  ARGV[5] raised   how many (bound, bucket number) pairs come first in updates
  ARGV[6..] updates  the pairs, then the bucket numbers with nothing after the page's end (forgotten)

  Returns 1 when written, 0 when the walk no longer holds `held` (nothing written).
  Error codes: none.
  Helpers: nowMs
]]
local walks, reserved, frontier, at = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local walk, held, nextAt, ttlMs, raised = ARGV[1], ARGV[2], ARGV[3], tonumber(ARGV[4]), tonumber(ARGV[5])

if redis.call('GET', at) ~= held or not redis.call('ZSCORE', walks, walk) then return 0 end
if nextAt == '' then
  redis.call('DEL', frontier, at)
  redis.call('ZREM', walks, walk)
  redis.call('HDEL', reserved, walk)
  return 1
end
-- In calls of up to 500 members (a page that read every bucket raises 16,384: one call each would be slow, one
-- call for all too many arguments for Lua's stack).
local first = 6 + 2 * raised
for i = 6, first - 1, 1000 do
  redis.call('ZADD', frontier, 'XX', unpack(ARGV, i, math.min(i + 999, first - 1)))
end
for i = first, #ARGV, 500 do
  redis.call('ZREM', frontier, unpack(ARGV, i, math.min(i + 499, #ARGV)))
end
redis.call('PEXPIRE', frontier, ttlMs + 60000)
redis.call('SET', at, nextAt, 'PX', ttlMs)
redis.call('ZADD', walks, 'XX', nowMs(), walk)
redis.call('PEXPIRE', walks, ttlMs + 60000)
-- The reservations live as long as the walks they count: expired while walks go on, the next walk-start would count
-- none of their bytes.
redis.call('PEXPIRE', reserved, ttlMs + 60000)
return 1
