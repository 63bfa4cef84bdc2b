-- A schedule record's header (src/store/schedule-record.ts): version, pending occurrence ms ('' for none), runs,
-- last run ms ('' for none), createdAt ms, all as text, then the rest (spec and payload) untouched. The two times
-- are taken as they are written, the text an occurrence id was built from (src/recurrence/time-bounds.ts keeps them
-- plain integers).
local function decodeSchedule(record)
  return string.match(record, '^(%d+)\n([^\n]*)\n(%d+)\n([^\n]*)\n(%d+)\n(.*)$')
end
