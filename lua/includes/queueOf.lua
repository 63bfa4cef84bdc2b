-- The target queue of a job record (its first field: encodeRecord), without copying the rest of it.
local function queueOf(record)
  return string.sub(record, 1, string.find(record, '\n', 1, true) - 1)
end
