-- A lease's dispatch attempt (number) and original due time (ms, kept as text: it is written back unchanged).
local function decodeLease(lease)
  local attempt, due = string.match(lease, '^(%d+):(%d+):')
  return tonumber(attempt), due
end
