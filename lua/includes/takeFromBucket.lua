-- A claim's visit of one due bucket (lua/claim.lua), after its look at the bucket's first jobs (peekBucket).
-- The jobs of `bucket` due by `upto`, at most `limit`, earliest first (ids and due times appended to `ids`, `dues`),
-- removed from the bucket (or, when they were all of it, the bucket appended to `drop`: the caller deletes those in
-- one DEL); `peeked` is its peek. Returns the bucket's earliest remaining due time (text, as the bucket gave it: a
-- number would be printed by printf for the index's ZADD), false when it is empty.
local function takeFromBucket(bucket, peeked, upto, limit, ids, dues, drop)
  local read, m = peeked.read, peeked.m
  local r = #read / 2
  local taken = 0
  while taken < r and taken < limit and tonumber(read[2 * taken + 2]) <= upto do
    taken = taken + 1
    ids[#ids + 1] = read[2 * taken - 1]; dues[#dues + 1] = read[2 * taken]
  end
  local from = #ids - taken + 1
  if taken == r and r == m + 1 then
    -- Every job read is due and the limit allows more: the bucket's other due jobs, by score.
    if limit > r then
      local more = redis.call('ZRANGE', bucket, '-inf', upto, 'BYSCORE', 'WITHSCORES', 'LIMIT', r, limit - r)
      for j = 1, #more, 2 do
        ids[#ids + 1] = more[j]; dues[#dues + 1] = more[j + 1]
      end
    end
    if #ids >= from then redis.call('ZREM', bucket, unpack(ids, from, #ids)) end
    local first = redis.call('ZRANGE', bucket, 0, 0, 'WITHSCORES')
    return first[2] or false
  end
  if taken < r then
    if taken > 0 then redis.call('ZREM', bucket, unpack(ids, from, #ids)) end
    return read[2 * taken + 2]
  end
  -- Every job of the bucket taken (the peek read fewer than it asked for: the whole bucket).
  drop[#drop + 1] = bucket
  return false
end
