--[[
  scan-start-release: on-demand scan mode, the start guard goes only for the start that holds it
  (src/on-demand/start/scan-start.ts): a start that failed gives it back so the next enqueue asks again, a start whose
  scanner is up lets it lapse shortly, and neither touches a guard a later start has taken since.

  KEYS[1] start  STRING  the start guard: the token of the start in progress (lua/enqueue.lua)

  ARGV[1] token   the token this start took the guard with
  ARGV[2] keepMs  0: remove the guard now; else let it lapse in keepMs (it still covers enqueues that asked just
                  before the scanner's marker appeared and are taking shard 0's guard now)

  Returns 1 when the guard held this token (and was removed or shortened), else 0.
  Error codes: none.
  Helpers: none
]]
local start = KEYS[1]
local token, keepMs = ARGV[1], tonumber(ARGV[2])

if redis.call('GET', start) ~= token then return 0 end
if keepMs > 0 then
  redis.call('PEXPIRE', start, keepMs)
else
  redis.call('DEL', start)
end
return 1
