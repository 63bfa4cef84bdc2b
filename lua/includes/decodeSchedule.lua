-- A schedule record's header (src/store/schedule-record.ts): version, pending occurrence ms ('' for none), runs,
-- last run ms ('' for none), createdAt ms, all as text, then the rest (spec and payload) untouched. The two times
-- are taken as they are written: a record stored before times were bounded may hold "1.795648056156e+15" there,
-- and its occurrence id was built from that same text, so a delete or replace still finds and removes it.
local function decodeSchedule(record)
  return string.match(record, '^(%d+)\n([^\n]*)\n(%d+)\n([^\n]*)\n(%d+)\n(.*)$')
end
