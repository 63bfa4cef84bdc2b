-- A claim's fullAt (lua/claim.lua) when fewer than fullCount buckets are due within the look-ahead, but they may
-- hold fullCount jobs between them (few buckets, or a burst): the fullCount-th earliest due time of their jobs (a
-- bucket not among KEYS counts its earliest only), or -1. At most fullCount - 1 small reads. `scored`: the due
-- buckets with their scores; `hinted`: bucket number -> key of the buckets the claim may read.
local function fullAtInFewBuckets(scored, upto, hinted, fullCount)
  local dues = {}
  for j = 1, #scored, 2 do
    local bucket = hinted[scored[j]]
    if bucket then
      local firsts = redis.call('ZRANGE', bucket, '-inf', upto, 'BYSCORE', 'WITHSCORES', 'LIMIT', 0, fullCount)
      for k = 2, #firsts, 2 do dues[#dues + 1] = tonumber(firsts[k]) end
    else
      dues[#dues + 1] = tonumber(scored[j + 1])
    end
  end
  if #dues < fullCount then return -1 end
  table.sort(dues)
  return dues[fullCount]
end
