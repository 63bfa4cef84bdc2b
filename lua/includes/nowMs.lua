-- Redis's clock in epoch ms: every due time, lease and retry is on this clock, never on a caller's.
local function nowMs()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
