-- The target queue of a job record ("<queue>\n<createdAt>\n<version>\n<groupId>\n<payload>": src/store/record.ts).
local function queueOf(record)
  return string.sub(record, 1, string.find(record, '\n', 1, true) - 1)
end
