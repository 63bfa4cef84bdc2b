-- Whether a job may be in SQS already although no scanner holds it: a send of it failed in a way that SQS may still
-- have accepted (a timeout, a reset connection, a server error), so release.lua marked its last error. The mark stays
-- until the job is sent and acknowledged (gone) or replaced by nobody: cancel and replace refuse such a job (a 204
-- would promise that a message SQS may hold never runs).
local function maybeSent(errors, id)
  local lastError = redis.call('HGET', errors, id)
  return lastError ~= false and string.find(lastError, '"maybeSent":true', 1, true) ~= nil
end
