-- Per-queue counters: field "<queue>|<state>" of the shard's counts hash, state "pending" | "dead" | "dispatched".
local function countBy(counts, queue, state, by)
  redis.call('HINCRBY', counts, queue .. '|' .. state, by)
end
