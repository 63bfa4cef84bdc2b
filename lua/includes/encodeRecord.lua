-- A job record, the one stored form of a job in every state (src/store/record.ts reads it):
-- "<queue>\n<createdAt ms, base 36>\n<version>\n<groupId>\n<payload JSON>". createdAt and version are numbers,
-- groupId is '' for none. The payload goes last: JSON text never holds a raw newline, so it needs no escaping.
local function encodeRecord(queue, createdAt, version, groupId, payload)
  return queue .. '\n' .. base36(createdAt) .. '\n' .. version .. '\n' .. groupId .. '\n' .. payload
end
