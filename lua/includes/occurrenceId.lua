-- The job id of a schedule's occurrence, "<scheduleId>@<at>" (src/recurrence/occurrence-id.ts). `at` is the occurrence
-- time as the decimal text the caller sent or the schedule record holds: Lua would print a number of 1e14 or more in
-- exponent form, and the id must be built from the same text every time.
local function occurrenceId(scheduleId, at)
  return scheduleId .. '@' .. at
end
