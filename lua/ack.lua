#!lua flags=allow-oom
--[[
  ack: forget jobs that SQS accepted, for the lease that sent them only, and keep a dispatch receipt of each.

  KEYS[1] jobs      HASH  id -> record
  KEYS[2] inflight  ZSET  id -> lease expiry or retry time (ms)
  KEYS[3] leases    HASH  id -> "attempt:dueMs:token"
  KEYS[4] errors    HASH  id -> last dispatch error
  KEYS[5] counts    HASH  "<queue>|<state>" -> count
  KEYS[6..] receipts  HASHes of this hour's receipts (id -> receipt: src/store/receipt.ts); none: receipts are off

  ARGV[1] expireAt     when the receipt hashes expire (ms, epoch)
  ARGV[2..] settlements  groups of four: id, claim token, receipt hash (index into KEYS[6..], 0 for none), receipt

  Returns the number of jobs acknowledged. A group whose token no longer holds the job (the lease expired and
  another scanner took it, or it was released) changes nothing, and leaves no receipt.
  Runs when Redis is at maxmemory too (the allow-oom flag on the first line): the queue must drain when it is full,
  and this script frees memory or holds it about level (a receipt is a fraction of the record it replaces).
  Error codes: none.
  Helpers: movePending, holdsLease, keepReceipt, expireReceipts
]]
local jobs, inflight, leases, errors, counts = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5]
local acked = 0
local touched = {}
for i = 2, #ARGV, 4 do
  local id, token, receiptKey = ARGV[i], ARGV[i + 1], tonumber(ARGV[i + 2])
  if holdsLease(redis.call('HGET', leases, id), token) then
    local record = redis.call('HGET', jobs, id)
    redis.call('ZREM', inflight, id)
    redis.call('HDEL', leases, id)
    redis.call('HDEL', errors, id)
    if record then
      redis.call('HDEL', jobs, id)
      movePending(counts, record, 'dispatched')
      if receiptKey > 0 then keepReceipt(5 + receiptKey, id, ARGV[i + 3], touched) end
    end
    acked = acked + 1
  end
end
expireReceipts(touched, ARGV[1])
return acked
