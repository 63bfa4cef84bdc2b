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
  Helpers: queueOf, countBy, holdsLease, keepReceipt, expireReceipts
]]
local jobs, inflight, leases, errors, counts = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5]
-- A burst acks a claim's jobs at once: the deletes and counts are gathered and written once per key at the end (a
-- write per job and key was most of this script's Redis CPU). Reads stay per job.
local held, withRecord, dispatched, seen = {}, {}, {}, {}
local touched = {}
for i = 2, #ARGV, 4 do
  local id, token, receiptKey = ARGV[i], ARGV[i + 1], tonumber(ARGV[i + 2])
  -- An id twice in one call is acked once (its lease is only deleted at the end).
  if not seen[id] and holdsLease(redis.call('HGET', leases, id), token) then
    seen[id] = true
    held[#held + 1] = id
    local record = redis.call('HGET', jobs, id)
    if record then
      withRecord[#withRecord + 1] = id
      local queue = queueOf(record)
      dispatched[queue] = (dispatched[queue] or 0) + 1
      if receiptKey > 0 then keepReceipt(5 + receiptKey, id, ARGV[i + 3], touched) end
    end
  end
end
-- One command per key, in slices: Lua's unpack takes a few thousand values at most.
local function each(command, key, ids)
  for from = 1, #ids, 1000 do
    redis.call(command, key, unpack(ids, from, math.min(from + 999, #ids)))
  end
end
each('ZREM', inflight, held)
each('HDEL', leases, held)
each('HDEL', errors, held)
each('HDEL', jobs, withRecord)
for queue, n in pairs(dispatched) do
  countBy(counts, queue, 'pending', -n)
  countBy(counts, queue, 'dispatched', n)
end
expireReceipts(touched, ARGV[1])
return #held
