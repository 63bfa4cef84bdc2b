#!lua flags=allow-oom
--[[
  scheduler-lock-release: a change of one Scheduler schedule gives its lock back (src/scheduler-api/schedule-lock.ts),
  and only its own: a lock that lapsed and was taken by another change since stays with that one.
  allow-oom: deleting frees memory; a full Redis must not keep schedules locked until the lock expires.

  KEYS[1] lock  STRING  the token of the change holding the schedule, expiring

  ARGV[1] token  the token this change took the lock with

  Returns 1 when the lock held this token (and is gone now), else 0.
  Error codes: none.
  Helpers: none
]]
local lock = KEYS[1]
local token = ARGV[1]

if redis.call('GET', lock) ~= token then return 0 end
redis.call('DEL', lock)
return 1
