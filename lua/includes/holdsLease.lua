-- Whether the claim token still holds the lease: false once it expired and another claim took the job, or it was
-- released (a stale ack or release must change nothing).
local function holdsLease(lease, token)
  return lease and token ~= '' and string.sub(lease, -(#token + 1)) == ':' .. token
end
