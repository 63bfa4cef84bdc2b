-- A job record, the one stored form of a job in every state (src/store/record.ts reads it):
-- "<queue>\n<createdAt ms, base 36>\n<version>[:<write token>.<request digest>]\n<groupId>\n<payload JSON>[\n<tags>]".
-- createdAt and version are numbers, groupId is '' for none; the write token (an Idempotency-Key, never holding ":",
-- "." or "\n") and the digest of the request that sent it (requestDigest) only when the write that stored this
-- version sent one, so a job without costs nothing. The payload comes after the header: JSON text never holds a raw
-- newline, so it needs no escaping, and the job's tags ("\n"-separated, validated without "\n") may follow it, only
-- when it has some.
local function encodeRecord(queue, createdAt, version, groupId, payload, token, request, tags)
  local v = (token and token ~= '') and (version .. ':' .. token .. '.' .. request) or version
  local record = queue .. '\n' .. base36(createdAt) .. '\n' .. v .. '\n' .. groupId .. '\n' .. payload
  if tags and tags ~= '' then return record .. '\n' .. tags end
  return record
end
