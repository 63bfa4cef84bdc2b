-- A job record's fields (encodeRecord): queue, createdAt (ms) and version (numbers), groupId ('' for none), payload,
-- the write token of the write that stored it and that write's request digest ('' for none), and its tags ("\n"-
-- separated, '' for none); nothing (nil) for a text that is not a job record. queueOf reads the queue alone without
-- copying the payload.
local function decodeRecord(record)
  local queue, createdAt, version, groupId, payload, tags =
    string.match(record, '^([^\n]*)\n([^\n]*)\n([^\n]*)\n([^\n]*)\n([^\n]*)\n?(.*)$')
  if not queue then return nil end
  local v, token, request = string.match(version, '^(%d+):?([^.]*)%.?(.*)$')
  return queue, tonumber(createdAt, 36), tonumber(v), groupId, payload, token, request, tags
end
