#!lua
--[[
  flow-set: change one flow control setting and bump the settings' epoch, in one step.

  KEYS[1] settings  HASH  "p:<name>" -> "1" (paused), "r:<name>" -> "<rate>/<burst>", "epoch" -> the settings' version

  ARGV[1] field  the setting ("p:<name>" or "r:<name>")
  ARGV[2] value  its new value; "" removes it

  Returns the new epoch (a number). The caller writes it on every shard (lua/flow-epoch.lua): claims return it there.
  Error codes: none.
  Helpers: none
]]
local settings, field, value = KEYS[1], ARGV[1], ARGV[2]
if value == '' then
  redis.call('HDEL', settings, field)
else
  redis.call('HSET', settings, field, value)
end
return redis.call('HINCRBY', settings, 'epoch', 1)
