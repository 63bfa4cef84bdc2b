#!lua flags=allow-oom
--[[
  flow-resume: one bounded step of a resume on one shard: jobs held for a pause go back to leave in due order.

  KEYS[1] inflight  ZSET  id -> lease expiry or retry time (ms)
  KEYS[2] leases    HASH  id -> lease (lua/includes/encodeLease.lua)
  KEYS[3] held      ZSET  id -> place in due order (ms): the jobs held for the pause of one name (lua/flow-hold.lua)
  KEYS[4] epoch     STRING  the flow settings' version on this shard (lua/claim.lua returns it)

  ARGV[1] limit  most jobs to move in this step (a step stays short: Redis serves nothing else while it runs)
  ARGV[2] wake   the shard's wake channel: told that jobs may leave now, so a sleeping scanner claims at once
  ARGV[3] epoch  the settings' version with the pause lifted: written (never lowered) by the step that empties the held
                 set, so no claim returns it while jobs of the pause are still held on this shard. A scanner that read
                 it elsewhere does not take older claims as its reach (src/scan/loop/fifo-merge.ts): a FIFO group's
                 jobs put back here keep their place before its later jobs on other shards

  A held job still waiting (no scanner holds it) gets its place in due order back as its time in the inflight set:
  that place is past, so the next claim takes it at once, earliest first (lua/claim.lua takes retries in time
  order), and a FIFO group's jobs keep their order. A job that left the set meanwhile (cancelled, sent, claimed
  again) is only dropped from the held set.
  Returns { moved, left }: left is how many the held set still holds (0: this shard is done, its epoch written).
  Error codes: none.
  Helpers: waitsForRetry
]]
local inflight, leases, held, epochKey = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local limit, wake, epoch = tonumber(ARGV[1]), ARGV[2], ARGV[3]

local batch = redis.call('ZRANGE', held, 0, limit - 1, 'WITHSCORES')
local moved = 0
for i = 1, #batch, 2 do
  local id, place = batch[i], batch[i + 1]
  local lease = redis.call('HGET', leases, id)
  if lease and waitsForRetry(lease) and redis.call('ZSCORE', inflight, id) then
    redis.call('ZADD', inflight, place, id)
    moved = moved + 1
  end
  redis.call('ZREM', held, id)
end
if moved > 0 then redis.call('PUBLISH', wake, batch[2] .. ':') end
local left = redis.call('ZCARD', held)
if left == 0 and tonumber(redis.call('GET', epochKey) or '0') < tonumber(epoch) then
  redis.call('SET', epochKey, epoch)
end
return { moved, left }
