#!lua
--[[
  flow-epoch: tell one shard the flow settings' version, never moving it back.

  KEYS[1] epoch  STRING  the flow settings' version on this shard (lua/claim.lua returns it)

  ARGV[1] epoch  the version to write: written only when newer than the one there (two changes at once may reach a
                 shard in either order; the settings hash always holds the newest)

  Returns 1 when written, 0 when the shard had that version or a newer one.
  Error codes: none.
  Helpers: none
]]
local key, epoch = KEYS[1], tonumber(ARGV[1])
if tonumber(redis.call('GET', key) or '0') >= epoch then return 0 end
redis.call('SET', key, ARGV[1])
return 1
