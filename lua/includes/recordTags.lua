-- The tags of a job record (encodeRecord: "\n"-separated after the payload), '' for none, without decoding the rest:
-- the scripts that forget a job read its tags to take it out of the shard's tag index (indexTags).
local function recordTags(record)
  local at = 0
  for _ = 1, 5 do
    at = string.find(record, '\n', at + 1, true)
    if not at then return '' end
  end
  return string.sub(record, at + 1)
end
