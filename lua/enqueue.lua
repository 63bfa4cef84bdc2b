#!lua
--[[
  enqueue: schedule one job, insert-only or create-or-replace (upsert).

  KEYS[1] jobs      HASH  id -> record "queue\ncreatedAt(base36)\nversion[:token.request]\ngroupId\npayload" (encodeRecord)
  KEYS[2] index     ZSET  bucket number -> earliest due time (ms) in that bucket
  KEYS[3] bucket    ZSET  id -> due time (ms); the job's due bucket, chosen from its id by src/store/keys.ts
  KEYS[4] inflight  ZSET  id -> lease expiry or retry time (ms)
  KEYS[5] leases    HASH  id -> "attempt:dueMs:token" (token empty while waiting for a dispatch retry)
  KEYS[6] errors    HASH  id -> last dispatch error (JSON; a dead job's carries its due time, `due`)
  KEYS[7] dead      ZSET  id -> time it died (ms)
  KEYS[8] counts    HASH  "<queue>|pending" / "<queue>|dead" / "<queue>|dispatched" -> count
  KEYS[9] scanner   ZSET exists (with an expiry) while a scanner runs: on-demand scan mode
                    (src/on-demand/run/presence.ts)
  KEYS[10] start    STRING set NX (with an expiry) to this job's id by the enqueue that asks for a scanner: one start
                    at a time, removed only by that start (lua/scan-start-release.lua, lua/scanner-retire.lua)
  KEYS[11] tags     ZSET  the shard's tag index: "<tag>\n<id>" -> 0 for each tag of each stored job (indexTags)
  KEYS[12..] receipts  HASHes that may hold the id's dispatch receipt (src/store/receipt.ts), newest first; given only
                    with a write token (none: receipts are off)

  ARGV[1] id
  ARGV[2] bucketNo  the job's bucket number (its member in KEYS[2])
  ARGV[3] mode      "insert" | "upsert" | "extend" | "debounce" (src/store/upsert-modes.ts): upsert replaces a stored
                    job; extend replaces all but its payload; debounce replaces it, its due time capped at its first
                    write (its creation time) + maxWaitMs; a new id, or one dispatched since, is created by each
  ARGV[4] queue     queue name
  ARGV[5] groupId   "" for none
  ARGV[6] payload   JSON text
  ARGV[7] kind      "delay" | "at"
  ARGV[8] when      delay in ms (added to Redis's clock) | absolute due time in epoch ms (the past means now)
  ARGV[9] wake      the shard's wake channel: published to when this job becomes the earliest of its shard
  ARGV[10] startHorizon  on-demand mode (ms): a job due sooner than this while no scanner runs asks for one;
                         0 never asks (continuous mode, or a caller that cannot start the scan function)
  ARGV[11] startGuardMs  expiry of the start guard: how long this start keeps other enqueues from asking again
  ARGV[12] writeToken  the write token (Idempotency-Key: one per logical call, the same on each of its attempts), "" for
                    none; kept in the record with the digest of this request (requestDigest), and a digest of the
                    token in the job's dispatch receipt (src/store/receipt.ts)
  ARGV[13] createdAtMs  "" for now; else the creation time a new job keeps (a DLQ redrive keeps the original one; now
                    when that is later). It is
                    a new incarnation all the same: its version is this write's time (ms), so the FIFO deduplication id
                    (id, version, createdAt: src/sqs/envelope.ts) differs from every earlier delivery's
  ARGV[14] tags     the job's tags, "\n"-separated ("" for none): kept in its record and indexed; a replace takes
                    the job out of the index under the tags it had
  ARGV[15] maxWaitMs  debounce: how long after a job's first write it is due at the latest (0 in other modes)

  Returns on success: { 1 created | 2 replaced, dueMs, createdAtMs, version, startScanner }, startScanner 1 when
  the caller must start the scan function now (it holds this shard's start guard), else 0
  Returns for a write token already applied (an earlier attempt of the same call stored it), changing nothing:
    { 3, dueMs, createdAtMs, version, queue, groupId }  the job that attempt stored is still here (its record is
                                        rewritten unchanged, so that a WAIT after this script confirms that attempt's
                                        write too); queue and groupId as stored
    { 4, receipt }                      SQS took it since: the receipt of this id that carries the token's digest
  A token applied before is looked for first, so a retried insert finds its own job rather than JOB_EXISTS. Only a
  write carrying the job's own token learns that it is a replay: a JOB_EXISTS answer says nothing of the payload.
  Refused whole by Redis at maxmemory (the shebang makes Redis check memory before it runs, so no write is ever
  half done): OOM, which the store reports as StoreFullError (507).
  Error codes (first element):
    -1 JOB_EXISTS       insert of an id that exists: { -1, state, record, score }
    -2 JOB_DISPATCHING  upsert of a job that is being handed to SQS right now
    -5 JOB_MAYBE_DISPATCHED  upsert of a job whose last send may have reached SQS (lua/release.lua), until its retry
                             settles
    -6 KEY_REUSED       the write token was applied to this id with another request (its digest differs; once
                        dispatched, its queue differs from the receipt's): nothing changes

  Due time is Redis's clock (TIME), never the caller's: a skewed client cannot make a job early or late.
  Helpers: nowMs, requestDigest, encodeRecord, decodeRecord, decodeLease, receiptToken, countBy, reindexBucket, waitsForRetry, maybeSent, wakeIfEarliest, recordTags, indexTags
]]
local jobs, index, bucket, inflight, leases, errors, dead, counts =
  KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6], KEYS[7], KEYS[8]
local scanner, start, tagIndex = KEYS[9], KEYS[10], KEYS[11]
local id, bucketNo, mode, queue, groupId, payload, kind, when, wake =
  ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5], ARGV[6], ARGV[7], tonumber(ARGV[8]), ARGV[9]
local startHorizon, startGuardMs, writeToken, tags = tonumber(ARGV[10]), ARGV[11], ARGV[12], ARGV[14]
local maxWait = tonumber(ARGV[15])

local now = nowMs()
local born, firstVersion = now, 0
-- Never later than now: the time comes from a message body (a redrive), and a job is not created in the future.
if ARGV[13] ~= '' then born, firstVersion = math.min(tonumber(ARGV[13]), now), now end
-- What this write asks for, kept with its token: the same token with another request is not a retry of this one.
-- Tags and maxWait count only when sent: the digest of a write without them is what it always was.
local asked = (tags ~= '' or maxWait > 0) and (payload .. '\n' .. tags .. '\n' .. maxWait) or payload
local request = writeToken ~= '' and requestDigest(mode, queue, groupId, kind, ARGV[8], asked) or ''

local due
if kind == 'delay' then
  due = now + when
else
  due = math.max(when, now)
end
-- Debounce: due maxWaitMs after the first write at the latest (a stored job's first write is its creation, below).
if mode == 'debounce' then due = math.min(due, now + maxWait) end

-- On-demand scan mode: 1 when this job is due before the next scheduled scan could take it, no scanner runs, and
-- no other enqueue is starting one already (the guard is taken here, in the same atomic step).
local function startScanner()
  if startHorizon <= 0 or due >= now + startHorizon then return 0 end
  if redis.call('EXISTS', scanner) == 1 then return 0 end
  if not redis.call('SET', start, id, 'NX', 'PX', startGuardMs) then return 0 end
  return 1
end

-- A write sent again (its answer was lost, or a 503 came after it was applied) is answered as its earlier attempt
-- was and changes nothing: also once that job left for SQS, when only its receipt is left.
if writeToken ~= '' then
  local stored = redis.call('HGET', jobs, id)
  if stored then
    local storedQueue, storedAt, storedVersion, storedGroup, _, storedToken, storedRequest = decodeRecord(stored)
    if storedToken == writeToken then
      if storedRequest ~= request then return { -6 } end
      redis.call('HSET', jobs, id, stored)
      local storedDue = redis.call('ZSCORE', bucket, id)
      if not storedDue then
        local lease = redis.call('HGET', leases, id)
        if lease then
          local _, leaseDue = decodeLease(lease)
          storedDue = leaseDue
        else
          -- Dead: its due time is kept with its last error (the dead set's score is when it died). A job that died
          -- before the due time was kept there answers with the time it died, as GET shows it.
          local lastError = redis.call('HGET', errors, id)
          local ok, e = pcall(cjson.decode, lastError or '')
          storedDue = (ok and type(e) == 'table' and e.due) or redis.call('ZSCORE', dead, id) or '0'
        end
      end
      return { 3, storedDue, storedAt, storedVersion, storedQueue, storedGroup }
    end
  end
  -- A receipt keeps 8 hex digits of the token's SHA-1 (src/store/receipt.ts: writeTokenDigest) and no request digest
  -- (bytes a compact receipt has not to spare): another request is told apart by its queue alone.
  local digest = string.sub(redis.sha1hex(writeToken), 1, 8)
  for i = 12, #KEYS do
    local receipt = redis.call('HGET', KEYS[i], id)
    if receipt then
      local token, receiptQueue = receiptToken(receipt)
      if token == digest then
        if receiptQueue ~= queue then return { -6 } end
        return { 4, receipt }
      end
    end
  end
end

-- Insert of a new id, the common case, in as few calls as possible: HSETNX both checks and writes; the index only
-- changes when this job is its bucket's new earliest (ZADD LT), and only then can it be the shard's earliest.
if mode == 'insert' then
  if redis.call('HSETNX', jobs, id, encodeRecord(queue, born, firstVersion, groupId, payload, writeToken, request, tags)) == 1 then
    redis.call('ZADD', bucket, due, id)
    indexTags(tagIndex, 'ZADD', tags, id)
    countBy(counts, queue, 'pending', 1)
    if redis.call('ZADD', index, 'LT', 'CH', due, bucketNo) == 1 then wakeIfEarliest(index, wake, bucketNo, due) end
    return { 1, due, born, firstVersion, startScanner() }
  end
end

local createdAt, version = born, firstVersion
local old = redis.call('HGET', jobs, id)
if old then
  local dueScore = redis.call('ZSCORE', bucket, id)
  local lease = redis.call('HGET', leases, id)
  local deadAt = redis.call('ZSCORE', dead, id)
  if mode == 'insert' then
    if dueScore then return { -1, 'scheduled', old, dueScore } end
    if deadAt then return { -1, 'dead', old, deadAt } end
    local retrying = lease and waitsForRetry(lease)
    return { -1, retrying and 'retrying' or 'dispatching', old, redis.call('ZSCORE', inflight, id) or '0' }
  end
  -- A lease with an empty token is waiting for a dispatch retry: it may still be replaced, unless its failed send
  -- may have reached SQS (then the old version may run: the replace could not keep its promise).
  if lease and not waitsForRetry(lease) then return { -2 } end
  if maybeSent(errors, id) then return { -5 } end
  -- Replace: keep the creation time, bump the version (FIFO dedup ids change with it).
  local oldQueue, oldCreatedAt, oldVersion, _, oldPayload = decodeRecord(old)
  createdAt, version = oldCreatedAt, oldVersion + 1
  if mode == 'extend' then payload = oldPayload end
  if mode == 'debounce' then due = math.max(math.min(due, oldCreatedAt + maxWait), now) end
  indexTags(tagIndex, 'ZREM', recordTags(old), id)
  if lease then
    redis.call('ZREM', inflight, id)
    redis.call('HDEL', leases, id)
    redis.call('HDEL', errors, id)
  end
  if deadAt then
    redis.call('ZREM', dead, id)
    redis.call('HDEL', errors, id)
    countBy(counts, oldQueue, 'dead', -1)
  else
    countBy(counts, oldQueue, 'pending', -1)
  end
end

redis.call('HSET', jobs, id, encodeRecord(queue, createdAt, version, groupId, payload, writeToken, request, tags))
redis.call('ZADD', bucket, due, id)
indexTags(tagIndex, 'ZADD', tags, id)
countBy(counts, queue, 'pending', 1)
reindexBucket(index, bucket, bucketNo)
wakeIfEarliest(index, wake, bucketNo, due)

return { old and 2 or 1, due, createdAt, version, startScanner() }
