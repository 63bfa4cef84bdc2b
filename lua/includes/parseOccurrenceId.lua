-- The schedule id and occurrence time (decimal text) an occurrence id names (occurrenceId), or nil for an ordinary job
-- id: job ids chosen by users never hold "@" (src/direct/id-rules.ts).
local function parseOccurrenceId(id)
  return string.match(id, '^(.+)@(%d+)$')
end
