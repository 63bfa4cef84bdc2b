-- A claim's first step (lua/claim.lua): leases that expired (their scanner died) and released jobs whose retry time
-- has come, each taken again for this claim (addClaimed) or, after too many expired leases, put in the dead set. An
-- idle scanner calls this every poll interval: look at the head first, and scan only when something is due. Returns
-- the head and whether anything was looked at.
-- k: the shard's keys (jobs, inflight, leases, errors, dead, counts); c: the claim's now, limit, maxAttempts,
-- leaseUntil and token.
local function retakeExpired(k, c, addClaimed)
  local leaseHead = redis.call('ZRANGE', k.inflight, 0, 0, 'WITHSCORES')
  local expired = {}
  if leaseHead[1] and tonumber(leaseHead[2]) <= c.now then
    expired = redis.call('ZRANGE', k.inflight, '-inf', c.now, 'BYSCORE', 'LIMIT', 0, c.limit, 'WITHSCORES')
  end
  for e = 1, #expired, 2 do
    local id, score = expired[e], expired[e + 1]
    local held = redis.call('HGET', k.leases, id)
    local record = redis.call('HGET', k.jobs, id)
    if not held or not record then
      redis.call('ZREM', k.inflight, id)
      redis.call('HDEL', k.leases, id)
    else
      local attempt, due, recoveries, faults = decodeLease(held)
      -- A lease that expired (not one released for a retry) is a crash recovery, counted apart from dispatch
      -- attempts: a job that SQS turned away many times during an outage and then lost one scanner is not dying.
      -- Scanners that keep dying on the same job (maxAttempts expired leases) send it to the dead set. A released job
      -- whose retry time came is retried whatever its counts: release.lua already decided it may live.
      local crashed = not waitsForRetry(held)
      if crashed then recoveries = recoveries + 1 end
      if crashed and recoveries >= c.maxAttempts then
        redis.call('ZREM', k.inflight, id)
        redis.call('HDEL', k.leases, id)
        redis.call('ZADD', k.dead, c.now, id)
        redis.call('HSET', k.errors, id, cjson.encode({ attempts = attempt, at = c.now, due = due,
          message = 'lease expired ' .. recoveries .. ' times: the scanners holding it stopped before acknowledging' }))
        movePending(k.counts, record, 'dead')
      else
        attempt = attempt + 1
        redis.call('ZADD', k.inflight, c.leaseUntil, id)
        redis.call('HSET', k.leases, id, encodeLease(attempt, due, c.token, recoveries, faults))
        -- A retry keeps the place it was released for (its retry time); an expired lease its due time.
        addClaimed(id, record, due, attempt, crashed and due or score)
      end
    end
  end
  return leaseHead, #expired > 0
end
