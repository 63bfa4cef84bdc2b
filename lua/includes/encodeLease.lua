-- A lease: "<attempt>:<dueMs>:<token>"; the token is empty while the job waits for a dispatch retry.
local function encodeLease(attempt, due, token)
  return attempt .. ':' .. due .. ':' .. token
end
