#!lua flags=allow-oom
--[[
  claim: lease a bounded batch of due jobs to one scanner.

  KEYS[1] jobs      HASH  id -> record
  KEYS[2] index     ZSET  bucket number -> earliest due time in that bucket
  KEYS[3] inflight  ZSET  id -> lease expiry or retry time (ms)
  KEYS[4] leases    HASH  id -> lease (lua/includes/encodeLease.lua)
  KEYS[5] errors    HASH  id -> last dispatch error (JSON; a dead job's carries its due time, `due`)
  KEYS[6] dead      ZSET  id -> time it died (ms)
  KEYS[7] counts    HASH  "<queue>|<state>" -> count
  KEYS[8] flowEpoch STRING the flow settings' version (src/flow/flow-settings.ts), returned as is
  KEYS[9] flowPace  HASH  rate name -> this shard's pace of it and its rate (lua/includes/flowPace.lua)
  KEYS[10..] buckets ZSET the due buckets the caller expects to be due (hints from the previous claim)

  ARGV[1] limit        most jobs to lease
  ARGV[2] leaseMs      lease length (ms)
  ARGV[3] token        claim token (random, one per call)
  ARGV[4] maxAttempts  a job whose lease expired this many times (its scanners died) goes to the dead set; a job
                       released for a retry is taken again whatever its counts (lua/release.lua decides those)
  ARGV[5] hintCap      most bucket hints to return for the next call
  ARGV[6] lookaheadMs  hints: the buckets due by max(now, earliest bucket's due time) + this, earliest first (at
                       most hintCap); only the earliest bucket when that is due later than now + this and fullCount
                       is 0 (with a window, an idle shard's claim reads the range too, for its fullAt). The
                       scanner passes 25 ms + its dispatch window: it claims next at the earliest due time + window
  ARGV[7] fullCount    with a dispatch window, the jobs that fill one SendMessageBatch (10); 0 without a window
  ARGV[8] fullBy       0, or the fullAt of the previous reply when the caller woke for a full request: take only
                       the scheduled jobs due by then, fullCount at most (the full request; the jobs due since are
                       inside their window). Jobs whose window has ended are taken whatever fullBy says, but within
                       those fullCount when fullBy is later than their window's end: they are the earliest, so they go
                       first, and any beyond fullCount (several in one bucket) go in the next claim, at once
  ARGV[9] windowMs     the caller's dispatch window (with fullBy)
  ARGV[10] paces       the rates to pace due jobs by (lua/includes/flowPace.lua), '' for none: a due job of a rate
                       name beyond what that rate lets go now is held (in the inflight set, its lease's token empty,
                       its attempt not counted, as lua/flow-hold.lua holds it) until its pace time, not returned
  ARGV[11] epochWanted '1': return the flow settings' version even when no job is leased or held (a scanner that
                       read newer settings moments ago must know whether this shard has them yet); otherwise it is
                       returned only with jobs: an idle shard's claim then runs no command for it
  ARGV[12..] bucketNos bucket numbers of KEYS[10..], in the same order

  Returns { now, nextDue, needHints, more, hints, jobs, nextInflight, fullAt, dueBy, claimed, flowEpoch }
    now        Redis time (ms); lets the caller track the offset between its clock and Redis's
    nextDue    earliest time anything is due (a bucket or an inflight lease/retry), -1 when nothing is pending
    needHints  1 when a due bucket was not among KEYS: call again at once with the returned hints
    more       1 when the limit was reached: call again at once
    hints      bucket numbers of the earliest buckets, for the next call's KEYS, as one text joined by ','
    jobs       flat list: id, record, id, record, ...
    nextInflight  the earliest lease expiry or retry time, -1 when none: the caller's dispatch window holds
               scheduled jobs, not retries
    fullAt     a time by which at least fullCount jobs are due (the fullCount-th earliest bucket's due time: every
               bucket's earliest is a job of its own; with fewer buckets due within the look-ahead, the fullCount-th
               earliest job in them), -1 when fewer are due within the look-ahead or fullCount is 0: the caller need
               not hold a window past it, its jobs fill a request
    dueBy      the latest due time this call took scheduled jobs up to (now, or earlier for a full request's
               claim): with needHints and more at 0, no job due by then is left in the buckets (src/scan/loop/fifo-merge.ts)
    claimed    each job's numbers, in the order of jobs, as one text joined by ',': dueMs, attempt, orderMs, ...:
               orderMs is the job's place in its FIFO group's order (src/scan/loop/fifo-merge.ts): its due time, or
               for a job released for a retry the retry time it was released for (its score in the inflight set).
               Hints and numbers travel as one text each: a claim of 250 jobs is otherwise 1,500 replies for the
               scanner to decode, one at a time
    flowEpoch  the flow settings' version ('0' for none): a scanner holding an older one reads them again before
               it sends this claim's jobs, so a pause that has answered holds every job claimed after it. '' when
               the claim leased and held nothing and epochWanted is not '1'
    paced      the jobs held for their pace, per rate name: "<name>\t<count>\t<latest hold - due (ms)>\n" each

  Order: expired leases and due retries first (they are the oldest), then due jobs by due time. Jobs due in the
  same millisecond come out bucket by bucket (bucket = hash of the id) and by id within a bucket.
  Runs when Redis is at maxmemory too (the allow-oom flag on the first line): the queue must drain when it is full,
  and this script frees memory or holds it about level.
  Error codes: none.
  Helpers: nowMs, encodeLease, flowPace, inSlices, peekBucket, takeFromBucket, fullAtInFewBuckets, retakeExpired
]]
local jobs, index, inflight, leases, errors, dead, counts =
  KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6], KEYS[7]
local limit, leaseMs, token, maxAttempts, hintCap, lookahead, fullCount, fullBy, windowMs =
  tonumber(ARGV[1]), tonumber(ARGV[2]), ARGV[3], tonumber(ARGV[4]), tonumber(ARGV[5]), tonumber(ARGV[6]),
  tonumber(ARGV[7]), tonumber(ARGV[8]), tonumber(ARGV[9])

local now = nowMs()
-- Scheduled jobs due by this time are taken. A claim for a full request stops at its tenth job: the few that fell
-- due while the claim was on its way would otherwise go in a second, nearly empty request.
-- Ten at most, or a job due in the same millisecond as the tenth would go alone in a second request.
local dueBy, take = now, limit
if fullBy > 0 then
  dueBy = math.min(now, math.max(fullBy, now - windowMs))
  if dueBy == fullBy then take = math.min(limit, fullCount) end
end
local leaseUntil = now + leaseMs
-- n: jobs leased; orphans: due ids taken out of their buckets without a record; paced: due jobs held for their
-- rate's pace (both count toward the limit).
local out, n, orphans, paced = {}, 0, 0, 0
local pace = flowPace(ARGV[10], KEYS[9], now)
-- A job held for its pace takes a quarter of a place in the limit: it costs the claim a third of a leased job's work
-- (no reply, no record copied out), and a burst of one key is walked in a quarter of the claims, so the jobs of other
-- keys due after it are reached that much sooner. The claim's own time stays about that of `limit` leased jobs.
local PACED_PER_PLACE = 4
local function spent() return n + orphans + math.floor(paced / PACED_PER_PLACE) end
-- A walk reaches no bucket beyond its hints: with rates to pace, the next claim brings enough of them for that.
if pace then hintCap = hintCap * PACED_PER_PLACE end

-- numbers: dueMs, attempt, orderMs of each job in out, as text ('1' for a first attempt: a number would be printed
-- with printf when joined).
local numbers = {}

local function addClaimed(id, record, due, attempt, orderAt)
  out[#out + 1] = id; out[#out + 1] = record
  numbers[#numbers + 1] = due; numbers[#numbers + 1] = attempt; numbers[#numbers + 1] = orderAt
  n = n + 1
end

-- The hinted buckets' keys (KEYS[10..]) by bucket number: the buckets this call may read.
local hinted = {}
for i = 10, #KEYS do hinted[ARGV[i + 2]] = KEYS[i] end

-- 2. Due jobs, merged across buckets in due-time order: take from the earliest bucket every job that is due
-- no later than the second-earliest bucket's first job, then go on with the next. Returns the index's head (its first
-- two buckets) and 1 when a due bucket was not among KEYS.
-- A burst visits a bucket per job or two, so a visit costs as few commands as it can: the index's due buckets are read
-- in chunks, not one look at its head per visit; a bucket is read once by rank (its first PEEK + 1 jobs), which also
-- shows its new earliest job, so its score in the index needs no read of its own; the index's changes and the jobs'
-- records are read and written once per claim. Same jobs, same order as one look at the index per visit: a chunk
-- stays the index's order as long as no bucket it holds gets a new score that is still due (that writes the changes
-- and reads the index again).
-- After a visit that left its bucket still due (a backlog spread over time: a few due jobs in every bucket, and most
-- visits end so), the index is read again in chunks of this many: a re-read of all the buckets the claim still needs
-- would read ~take²/2 index members over a claim (measured: twice the Redis CPU a claim of 250 over 16,384 buckets).
local REREAD_CHUNK = 16

-- Buckets whose every job this claim took (its peek read the whole bucket): deleted with one DEL per claim, not one
-- ZREM each. A burst empties a bucket per job or two, and each ZREM was a command of its own. Nothing reads an emptied
-- bucket again before the DEL: it leaves the index with the same write (writeIndex), and visits come from the index.
local drop = {}

local function takeDue()
  local ids, dues = {}, {}
  local needHints = 0
  -- Index changes not written yet: buckets emptied, and buckets whose new earliest job is due after dueBy.
  local emptied, rescored = {}, {}
  local function writeIndex()
    inSlices('ZREM', index, emptied)
    inSlices('ZADD', index, rescored)
    for from = 1, #drop, 1000 do redis.call('DEL', unpack(drop, from, math.min(from + 999, #drop))) end
    emptied, rescored, drop = {}, {}, {}
  end
  -- An idle shard (nothing due by dueBy) learns it from the index's head, which is also what the caller gets back:
  -- one read, as before the walk read the index in chunks (the bench's idle scanner: 4.5 commands/s, 5.5 without).
  local top = redis.call('ZRANGE', index, 0, 1, 'WITHSCORES')
  if not top[1] or tonumber(top[2]) > dueBy then return top, needHints end
  local walking = true
  local chunkCap = take
  while walking and spent() + #ids < take do
    -- Every bucket in the index holds a job: take - n buckets are enough, one more tells the last one's bound.
    local chunk = math.min(take - spent() - #ids, chunkCap)
    local head = redis.call('ZRANGE', index, '-inf', dueBy, 'BYSCORE', 'LIMIT', 0, chunk + 1)
    if #head == 0 then break end
    -- Without a further due bucket, the chunk held every one: the walk ends with it.
    walking = #head > chunk
    local peeked = nil
    for b = 1, math.min(#head, chunk) do
      local budget = take - spent() - #ids
      if budget <= 0 then
        walking = false
        break
      end
      local bucketNo = head[b]
      local bucket = hinted[bucketNo]
      if not bucket then
        needHints = 1
        walking = false
        break
      end
      local this = peeked or peekBucket(bucket, budget)
      peeked = nil
      -- Bound: the next due bucket's earliest job (its score in the index), read from that bucket itself.
      local upto = dueBy
      local nextNo = head[b + 1]
      if nextNo then
        local nextBucket = hinted[nextNo]
        local first
        if nextBucket then
          peeked = peekBucket(nextBucket, budget)
          first = peeked.read[2]
        else
          first = redis.call('ZSCORE', index, nextNo)
        end
        if first and tonumber(first) < upto then upto = tonumber(first) end
      end
      local rest = takeFromBucket(bucket, this, upto, budget, ids, dues, drop)
      if not rest then
        emptied[#emptied + 1] = bucketNo
      else
        rescored[#rescored + 1] = rest; rescored[#rescored + 1] = bucketNo
        -- Still due (after the next bucket's first job): its place in the chunk is wrong, read the index again.
        if tonumber(rest) <= dueBy then
          walking = true
          chunkCap = REREAD_CHUNK
          break
        end
      end
    end
    writeIndex()
  end
  writeIndex()
  -- The records, in one read; a job without one (cannot happen through these scripts) leaves its bucket unleased.
  if #ids > 0 then
    local leased, leaseValues = {}, {}
    -- Numbers become text for each command that gets them (printf in Redis's Lua, per value): as text once here.
    local leaseScore = string.format('%d', leaseUntil)
    for from = 1, #ids, 1000 do
      local records = redis.call('HMGET', jobs, unpack(ids, from, math.min(from + 999, #ids)))
      for j = 1, #records do
        local record = records[j]
        if record then
          local id, due = ids[from + j - 1], dues[from + j - 1]
          local at = pace and pace.holdUntil(record, due)
          if at then
            leased[#leased + 1] = string.format('%d', at); leased[#leased + 1] = id
            leaseValues[#leaseValues + 1] = id; leaseValues[#leaseValues + 1] = encodeLease('0', due, '')
            paced = paced + 1
          else
            leased[#leased + 1] = leaseScore; leased[#leased + 1] = id
            leaseValues[#leaseValues + 1] = id; leaseValues[#leaseValues + 1] = encodeLease('1', due, token)
            addClaimed(id, record, due, '1', due)
          end
        end
      end
    end
    orphans = orphans + #ids - #leased / 2
    inSlices('ZADD', inflight, leased)
    inSlices('HSET', leases, leaseValues)
  end
  return redis.call('ZRANGE', index, 0, 1, 'WITHSCORES'), needHints
end

-- 3. What the caller needs for its next call: when to come back, and which buckets to bring. Only the buckets due
-- soon: a claim carries its hints in and out, and a stream of 2-job claims must not haul hundreds of keys each time.
local function nextCall(top, leaseHead, leasesMoved)
  local nextDue, fullAt = -1, -1
  local hints = {}
  if top[1] then
    nextDue = tonumber(top[2])
    -- With a window (fullCount > 0) a far-off first job gets the range read too: its claim must know when its
    -- first request is full, and bring every bucket of it, or a shard waking from idle would hold its first ten
    -- jobs for the whole window, or split them over two claims.
    if nextDue > now + lookahead and fullCount == 0 then
      -- An idle or sparse shard: one hint and no range read (an idle shard's claim stays this cheap). Should more
      -- buckets be due by its next claim, that claim asks for them (needHints).
      hints = { top[1] }
    else
      -- The look-ahead counts from the next claim: with a dispatch window that is the earliest due time + the
      -- window, and every bucket due by then must come along, or the window's jobs would need two claims.
      local upto = math.max(now, nextDue) + lookahead
      if fullCount == 0 then
        -- No fullAt to find: the buckets alone (each score would be printed as text, by printf, for the reply).
        hints = redis.call('ZRANGE', index, '-inf', upto, 'BYSCORE', 'LIMIT', 0, hintCap)
      else
        local scored = redis.call('ZRANGE', index, '-inf', upto, 'BYSCORE', 'WITHSCORES', 'LIMIT', 0, hintCap)
        for j = 1, #scored, 2 do hints[#hints + 1] = scored[j] end
        if #hints >= fullCount then
          fullAt = tonumber(scored[2 * fullCount])
        else
          fullAt = fullAtInFewBuckets(scored, upto, hinted, fullCount)
        end
      end
    end
  end
  if leasesMoved then leaseHead = redis.call('ZRANGE', inflight, 0, 0, 'WITHSCORES') end
  local nextInflight = leaseHead[1] and tonumber(leaseHead[2]) or -1
  if nextInflight >= 0 and (nextDue < 0 or nextInflight < nextDue) then nextDue = nextInflight end
  return nextDue, hints, nextInflight, fullAt
end

-- 1. Leases that expired (their scanner died) and released jobs whose retry time has come; 2. due jobs; 3. the next
-- call's hints and times.
local leaseHead, retook = retakeExpired(
  { jobs = jobs, inflight = inflight, leases = leases, errors = errors, dead = dead, counts = counts },
  { now = now, limit = limit, maxAttempts = maxAttempts, leaseUntil = leaseUntil, token = token }, addClaimed)
local top, needHints = takeDue()
-- Held jobs left room in the limit: walk on (each walk takes as many jobs as the room left, which any of them fills).
-- A few places left are not worth a walk: the caller claims again at once (more).
local pacedBefore = 0
local function dueLeft() return needHints == 0 and top[1] ~= nil and tonumber(top[2]) <= dueBy end
while paced > pacedBefore and take - spent() >= 8 and dueLeft() do
  pacedBefore = paced
  top, needHints = takeDue()
end
local more = spent() >= limit or (paced > 0 and dueLeft())
local nextDue, hints, nextInflight, fullAt = nextCall(top, leaseHead, n > 0 or retook or paced > 0)
local pacedText = pace and pace.finish() or ''
local epoch = ''
if n > 0 or paced > 0 or ARGV[11] == '1' then epoch = redis.call('GET', KEYS[8]) or '0' end
return { now, nextDue, needHints, more and 1 or 0, table.concat(hints, ','), out,
  nextInflight, fullAt, dueBy, table.concat(numbers, ','), epoch, pacedText }
