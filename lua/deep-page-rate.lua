#!lua flags=allow-oom
--[[
  deep-page-rate: counts one deep page of GET /jobs for a caller (src/store/deep-page-rate.ts), in a window that
  starts with the caller's first deep page and lasts windowMs: a page that starts a walk's frontier, or reads without
  one deep in a queue, costs Redis up to a copy of a shard's index and thousands of bucket reads. Nothing is counted
  when the caller is over its limit already (a refused page reads nothing).
  allow-oom: a counter of a few bytes; pages are read while Redis is full (only writes of jobs are refused then).

  KEYS[1] count  STRING  the caller's deep pages in the window; expires when the window ends

  ARGV[1] limit     deep pages a caller may have per window
  ARGV[2] windowMs  the window's length

  Returns { allowed (1 or 0), ms until the window ends }.
  Error codes: none.
  Helpers: none
]]
local count = KEYS[1]
local limit, windowMs = tonumber(ARGV[1]), tonumber(ARGV[2])

local used = tonumber(redis.call('GET', count) or '0')
local left = redis.call('PTTL', count)
-- A count without an expiry would refuse its caller for good, and one in its last millisecond (PTTL 0, or a count that
-- expired while this script ran: the script still sees it) cannot be written with PX 0: a new window.
if left <= 0 then used, left = 0, windowMs end
if used >= limit then return { 0, left } end
redis.call('SET', count, used + 1, 'PX', left)
return { 1, left }
