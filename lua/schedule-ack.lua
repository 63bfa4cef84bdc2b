#!lua flags=allow-oom
--[[
  schedule-ack: forget occurrences that SQS accepted (as lua/ack.lua does for any job, for the lease that sent them
  only, keeping a dispatch receipt of each) and, in the same step, create each one's successor: no crash can separate
  the two.

  KEYS[1]   jobs       HASH  id -> record
  KEYS[2]   inflight   ZSET  id -> lease expiry or retry time (ms)
  KEYS[3]   leases     HASH  id -> "attempt:dueMs:token"
  KEYS[4]   errors     HASH  id -> last dispatch error
  KEYS[5]   counts     HASH  "<queue>|<state>" -> count
  KEYS[6]   schedules  HASH  schedule id -> record "version\npendingMs\nruns\nlastRunMs\ncreatedAtMs\nspec\npayload"
  KEYS[7]   index      ZSET  bucket number -> earliest due time in that bucket
  KEYS[8]   tags       ZSET  the shard's tag index: an acked occurrence's entries go, its successor's come (indexTags)
  KEYS[9..] bucketsAndReceipts  the schedules' due buckets, then the HASHes of this hour's dispatch receipts (id ->
                                receipt: src/store/receipt.ts; none when receipts are off); each named by its index

  ARGV[1]    wake         the shard's wake channel
  ARGV[2]    windowMs     the dispatch window: how late an occurrence may leave on purpose
  ARGV[3]    expireAt     when the receipt hashes expire (ms, epoch)
  ARGV[4..]  occurrences  groups of 11: occurrence id, claim token, schedule id, occurrence time (ms), the schedule
                          version the caller computed from, the next occurrence after this one (-1: none, the
                          schedule ends), the next occurrence after now on Redis's clock as the caller measured it
                          (-1: none), bucket number, index in KEYS of that bucket, index in KEYS of the receipt hash
                          (0: no receipt), receipt. Times are decimal text and stay text here (Lua prints numbers of
                          1e14 and more in exponent form).

  Successor rule: only when the schedule exists, still has the version the caller read (a replace in between made
  its own pending occurrence) and still names this occurrence as pending (a replace or pause moved on). The next
  occurrence after this one is used unless it is more than the dispatch window late on Redis's clock (an outage):
  then the first one after now is, so missed occurrences fire once (the overdue one that is being acknowledged), not
  once per miss. An occurrence less than the window late is not missed: the window lets it leave that late.
  Runs and last run: every acknowledged occurrence of the schedule counts (also one sent around a replace or pause),
  except one created before the schedule itself (an id deleted and created again while it was in flight).
  Returns the number of occurrences acknowledged. An occurrence whose token no longer holds it changes nothing and
  leaves no receipt.
  Runs when Redis is at maxmemory too (the allow-oom flag on the first line): the queue must drain when it is full,
  and this script frees memory or holds it about level (a receipt is a fraction of the record it replaces).
  Error codes: none.
  Helpers: nowMs, encodeRecord, decodeRecord, movePending, holdsLease, decodeSchedule, encodeSchedule, recordTags, indexTags, addOccurrence, keepReceipt, expireReceipts
]]
local k = { jobs = KEYS[1], inflight = KEYS[2], leases = KEYS[3], errors = KEYS[4], counts = KEYS[5],
  schedules = KEYS[6], index = KEYS[7], tags = KEYS[8] }
local wake = ARGV[1]
local now = nowMs()

-- The successor carries the acknowledged occurrence's queue, group, payload and tags (same schedule version, same
-- content), with a new creation time and version 0.
local function successor(queue, groupId, payload, tags, sid, at, bucketNo)
  addOccurrence(k, bucketNo, wake, sid, at, queue, encodeRecord(queue, now, 0, groupId, payload, '', '', tags))
end

local window = tonumber(ARGV[2])
local acked = 0
local touched = {}
for i = 4, #ARGV, 11 do
  local id, token, sid, at, version = ARGV[i], ARGV[i + 1], ARGV[i + 2], ARGV[i + 3], ARGV[i + 4]
  local nextAfterIt, nextAfterNow, bucketNo = ARGV[i + 5], ARGV[i + 6], ARGV[i + 7]
  if holdsLease(redis.call('HGET', k.leases, id), token) then
    local record = redis.call('HGET', k.jobs, id)
    redis.call('ZREM', k.inflight, id)
    redis.call('HDEL', k.leases, id)
    redis.call('HDEL', k.errors, id)
    if record then
      redis.call('HDEL', k.jobs, id)
      indexTags(k.tags, 'ZREM', recordTags(record), id)
      movePending(k.counts, record, 'dispatched')
      keepReceipt(tonumber(ARGV[i + 9]), id, ARGV[i + 10], touched)
      local schedule = redis.call('HGET', k.schedules, sid)
      if schedule then
        local v, pending, runs, lastRun, createdAt, rest = decodeSchedule(schedule)
        local queue, made, _, groupId, payload, _, _, tags = decodeRecord(record)
        local counts = made == nil or made >= tonumber(createdAt)
        local succeeds = v == version and pending == at
        if counts then
          runs = tonumber(runs) + 1
          if lastRun == '' or tonumber(lastRun) < tonumber(at) then lastRun = at end
        end
        if succeeds then
          local next = nextAfterIt
          if next ~= '-1' and tonumber(next) <= now - window then next = nextAfterNow end
          k.bucket = KEYS[tonumber(ARGV[i + 8])]
          if next ~= '-1' then successor(queue, groupId, payload, tags, sid, next, bucketNo) end
          pending = next ~= '-1' and next or ''
        end
        if counts or succeeds then
          redis.call('HSET', k.schedules, sid, encodeSchedule(v, pending, runs, lastRun, createdAt, rest))
        end
      end
    end
    acked = acked + 1
  end
end
expireReceipts(touched, ARGV[3])
return acked
