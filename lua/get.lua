--[[
  get: look a job up by id (read only).

  KEYS[1] jobs      HASH  id -> record
  KEYS[2] bucket    ZSET  the job's due bucket
  KEYS[3] inflight  ZSET  id -> lease expiry or retry time (ms)
  KEYS[4] leases    HASH  id -> "attempt:dueMs:token"
  KEYS[5] errors    HASH  id -> last dispatch error
  KEYS[6] dead      ZSET  id -> time it died (ms)
  KEYS[7..] receipts  HASHes that may hold its dispatch receipt, newest first (src/store/receipt.ts); none: off

  ARGV[1] id

  Returns nil when there is no such job (nor receipt), else
    { state, record, score, attempt, lastError }, or { 'dispatched', receipt } for a job SQS accepted
  state "scheduled"   score = due time; attempt 0 (no dispatch tried yet, or revived: the attempts start again)
        "dispatching" score = original due time (a scanner holds a lease on it); attempt = the lease's attempt
        "retrying"    score = time of the next dispatch attempt; attempt = the attempts made so far
        "dead"        score = time it died; attempt 0 (the attempts made are in lastError)
  Error codes: none.
  Helpers: decodeLease, waitsForRetry
]]
local jobs, bucket, inflight, leases, errors, dead = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6]
local id = ARGV[1]

local record = redis.call('HGET', jobs, id)
if not record then
  for i = 7, #KEYS do
    local receipt = redis.call('HGET', KEYS[i], id)
    if receipt then return { 'dispatched', receipt } end
  end
  return nil
end
local lastError = redis.call('HGET', errors, id) or ''

local due = redis.call('ZSCORE', bucket, id)
if due then return { 'scheduled', record, due, 0, lastError } end

local lease = redis.call('HGET', leases, id)
if lease then
  local attempt, leaseDue = decodeLease(lease)
  if waitsForRetry(lease) then
    return { 'retrying', record, redis.call('ZSCORE', inflight, id), attempt, lastError }
  end
  return { 'dispatching', record, leaseDue, attempt, lastError }
end

local deadAt = redis.call('ZSCORE', dead, id)
return { 'dead', record, deadAt or '0', 0, lastError }
