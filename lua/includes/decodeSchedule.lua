-- A schedule record's header (src/store/schedule-record.ts): version, pending occurrence ms ('' for none), runs,
-- last run ms ('' for none), createdAt ms, all as text, then the rest (spec and payload) untouched.
local function decodeSchedule(record)
  return string.match(record, '^(%d+)\n(%d*)\n(%d+)\n(%d*)\n(%d+)\n(.*)$')
end
