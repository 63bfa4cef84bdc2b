-- A lease's dispatch attempt (number), original due time (ms, kept as text: it is written back unchanged), crash
-- recoveries and refusals that were the job's fault (numbers; 0 in the short form: see encodeLease).
local function decodeLease(lease)
  local attempt, due, recoveries, faults = string.match(lease, '^(%d+):(%d+):(%d+):(%d+):')
  if attempt then return tonumber(attempt), due, tonumber(recoveries), tonumber(faults) end
  attempt, due = string.match(lease, '^(%d+):(%d+):')
  return tonumber(attempt), due, 0, 0
end
