-- A lease with an empty token is no lease at all: the job waits for a dispatch retry and no scanner holds it.
local function waitsForRetry(lease)
  return string.sub(lease, -1) == ':'
end
