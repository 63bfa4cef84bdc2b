#!lua flags=allow-oom
--[[
  ack: forget jobs that SQS accepted, for the lease that sent them only, and keep a dispatch receipt of each.

  KEYS[1] jobs      HASH  id -> record
  KEYS[2] inflight  ZSET  id -> lease expiry or retry time (ms)
  KEYS[3] leases    HASH  id -> "attempt:dueMs:token"
  KEYS[4] errors    HASH  id -> last dispatch error
  KEYS[5] counts    HASH  "<queue>|<state>" -> count
  KEYS[6] tags      ZSET  the shard's tag index: an acked job's entries go with its record (indexTags)
  KEYS[7..] receipts  HASHes of this hour's receipts (id -> receipt: src/store/receipt.ts); none: receipts are off

  ARGV[1] expireAt     when the receipt hashes expire (ms, epoch)
  ARGV[2..] settlements  groups of four: id, claim token, receipt hash (index into KEYS[7..], 0 for none), receipt

  Returns the number of jobs acknowledged. A group whose token no longer holds the job (the lease expired and
  another scanner took it, or it was released) changes nothing, and leaves no receipt.
  Runs when Redis is at maxmemory too (the allow-oom flag on the first line): the queue must drain when it is full,
  and this script frees memory or holds it about level (a receipt is a fraction of the record it replaces).
  Error codes: none.
  Helpers: queueOf, countBy, holdsLease, expireReceipts, recordTags, indexTags
]]
local jobs, inflight, leases, errors, counts, tagIndex = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6]
-- A burst acks a claim's jobs at once: the reads, deletes, receipts and counts are one command per key (in slices:
-- Lua's unpack takes a few thousand values at most), not one per job and key: that was most of this script's Redis
-- CPU.
local function hmget(key, names)
  local values = {}
  for from = 1, #names, 1000 do
    local part = redis.call('HMGET', key, unpack(names, from, math.min(from + 999, #names)))
    for j = 1, #part do values[from + j - 1] = part[j] end
  end
  return values
end
local ids = {}
for i = 2, #ARGV, 4 do ids[#ids + 1] = ARGV[i] end
local leaseOf = hmget(leases, ids)
-- held: the ids whose lease the group's token holds; at: each one's group in ARGV.
local held, at, seen = {}, {}, {}
for g = 1, #ids do
  local id, i = ids[g], 4 * g - 2
  -- An id twice in one call is acked once (its lease is only deleted at the end).
  if not seen[id] and holdsLease(leaseOf[g], ARGV[i + 1]) then
    seen[id] = true
    held[#held + 1] = id
    at[#at + 1] = i
  end
end
local records = hmget(jobs, held)
local withRecord, dispatched, receipts, touched = {}, {}, {}, {}
for h = 1, #held do
  local record = records[h]
  if record then
    local id, i = held[h], at[h]
    withRecord[#withRecord + 1] = id
    local queue = queueOf(record)
    dispatched[queue] = (dispatched[queue] or 0) + 1
    indexTags(tagIndex, 'ZREM', recordTags(record), id)
    -- Its receipt, kept in the hash KEYS[6 + n] (n 0: receipts are off).
    local n = 6 + tonumber(ARGV[i + 2])
    if n > 6 then
      local list = receipts[n]
      if not list then
        list = {}
        receipts[n] = list
      end
      list[#list + 1] = id; list[#list + 1] = ARGV[i + 3]
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
for n, list in pairs(receipts) do
  each('HSET', KEYS[n], list)
  touched[n] = true
end
for queue, n in pairs(dispatched) do
  countBy(counts, queue, 'pending', -n)
  countBy(counts, queue, 'dispatched', n)
end
expireReceipts(touched, ARGV[1])
return #held
