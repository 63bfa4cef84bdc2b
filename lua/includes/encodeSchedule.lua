-- A schedule record from its header fields and the rest (spec JSON, newline, payload JSON).
local function encodeSchedule(version, pending, runs, lastRun, createdAt, rest)
  return version .. '\n' .. pending .. '\n' .. runs .. '\n' .. lastRun .. '\n' .. createdAt .. '\n' .. rest
end
