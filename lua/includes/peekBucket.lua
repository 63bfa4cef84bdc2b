-- PEEK: a burst's bucket rarely holds more than 3 due jobs (20,000 jobs in 16,384 buckets: ~1.2 a bucket that has
-- any); a bucket with more is read again for the rest. Not more: every score read is printed as text by Redis (7.0:
-- printf), and a steady stream's bucket holds ~100 jobs of which one is due (bench/profile.ts stream).
local PEEK = 3

-- A bucket's first jobs by rank, with their due times: `limit` + 1 of them, PEEK + 1 at most. Also the earliest of
-- a bucket due next (the bound of the bucket before it), so the index's scores need not be read.
local function peekBucket(bucket, limit)
  local m = math.min(limit, PEEK)
  return { read = redis.call('ZRANGE', bucket, 0, m, 'WITHSCORES'), m = m }
end
