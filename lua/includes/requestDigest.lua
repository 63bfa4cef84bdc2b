-- The digest of a keyed write's request, kept in its record (src/store/record.ts): 8 hex digits of the SHA-1 of
-- everything the write asks for, kept with its write token, so that the token sent again with another request is
-- told apart from a retry of the same one (lua/enqueue.lua answers it IdempotencyKeyReused).
local function requestDigest(mode, queue, groupId, kind, when, payload)
  local request = mode .. '\n' .. queue .. '\n' .. groupId .. '\n' .. kind .. '\n' .. when .. '\n' .. payload
  return string.sub(redis.sha1hex(request), 1, 8)
end
