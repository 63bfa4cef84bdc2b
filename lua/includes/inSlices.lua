-- One command over a long list of arguments, 1,000 values a call (pairs stay whole): unpack and a command's
-- argument count stay bounded whatever the list's size.
local function inSlices(command, key, values)
  for from = 1, #values, 1000 do
    redis.call(command, key, unpack(values, from, math.min(from + 999, #values)))
  end
end
