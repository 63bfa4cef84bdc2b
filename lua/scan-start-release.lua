--[[
  scan-start-release: on-demand scan mode, the start guard goes only for the start that holds it
  (src/store/scan-start.ts): a start that failed gives it back so the next enqueue asks again, a start whose scanner
  is up gives it back as it is no longer needed, and neither removes a guard a later start has taken since.

  KEYS[1] start  STRING  the start guard: the token of the start in progress (lua/enqueue.lua)

  ARGV[1] token  the token this start took the guard with

  Returns 1 when the guard held this token and was removed, else 0.
  Error codes: none.
  Helpers: none
]]
local start = KEYS[1]
local token = ARGV[1]

if redis.call('GET', start) ~= token then return 0 end
redis.call('DEL', start)
return 1
