-- Tell sleeping scanners ("<dueMs>:<bucketNo>" on the shard's wake channel) when this job is now the shard's earliest.
local function wakeIfEarliest(index, wake, bucketNo, due)
  local first = redis.call('ZRANGE', index, 0, 0, 'WITHSCORES')
  if first[1] == bucketNo and tonumber(first[2]) == due then
    redis.call('PUBLISH', wake, due .. ':' .. bucketNo)
  end
end
