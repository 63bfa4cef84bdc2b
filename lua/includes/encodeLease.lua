-- A lease: "<attempt>:<dueMs>:<recoveries>:<faults>:<token>", or "<attempt>:<dueMs>:<token>" while both counters
-- are 0 (the form every lease had before the counters existed, so those still decode). The token is empty while the
-- job waits for a dispatch retry; it never holds ':', so the two forms cannot be mistaken for each other.
local function encodeLease(attempt, due, token, recoveries, faults)
  recoveries, faults = recoveries or 0, faults or 0
  if recoveries == 0 and faults == 0 then return attempt .. ':' .. due .. ':' .. token end
  return attempt .. ':' .. due .. ':' .. recoveries .. ':' .. faults .. ':' .. token
end
