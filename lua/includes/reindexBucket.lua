-- Keep a bucket's score in the shard's index equal to the bucket's earliest due time (absent when it is empty).
local function reindexBucket(index, bucket, bucketNo)
  local first = redis.call('ZRANGE', bucket, 0, 0, 'WITHSCORES')
  if first[1] then
    redis.call('ZADD', index, first[2], bucketNo)
  else
    redis.call('ZREM', index, bucketNo)
  end
end
